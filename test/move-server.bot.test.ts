/**
 * `npm run move-server` as an operator runs it: the compiled script (dist/move-server.js) as a
 * process, on real databases filled by the real agent. A move exits 0 and says what it moved
 * (refusals: move-server-refusals.bot.test.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyServer } from '../db/move-server.ts';
import { runLifecycle } from '../src/conversation/run-lifecycle.ts';
import { startInstance } from '../src/run-log/instance.ts';
import {
  database,
  everything,
  moveServer,
  moveServerFixtures,
  other,
  reading,
  server,
} from './support/move-server-fixtures.ts';
import { dayTwo, serverDump } from './support/server-data.ts';

const fx = moveServerFixtures();

describe('npm run move-server', () => {
  it('moves the server, says what per table, and a second run finds nothing left to do', async () => {
    const from = await database('shard-0.sqlite', [server, other]);
    const to = await database('shard-1.sqlite', []);
    const before = everything(from);

    const result = await moveServer('--server', server, '--from', from, '--to', to);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^Moved server ${server} from ${from} to ${to}:\\n  conversations +2\\n  messages +\\d+\\n  runs +5\\n`,
      ),
    );
    expect(result.stdout).toMatch(/ {2}channel_cursors +1\n {2}schedules +2\n {2}guild_usage_days +2\n/);
    expect(reading(to, (store) => serverDump(store, server))).toEqual(before.server);
    const none = { conversations: [], messages: [], runs: [], reminders: [], channelCursors: [], usageDays: [] };
    expect(everything(from)).toEqual({ server: none, others: before.others });
    // The move's instances are gone, and their lock files with them.
    expect(existsSync(`${from}-instances`)).toBe(false);
    expect(existsSync(`${to}-instances`)).toBe(false);

    const again = await moveServer('--server', server, '--from', from, '--to', to);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toContain(`Server ${server}'s data is in ${to} already, and none is left in ${from}`);
  });

  it("creates a target that does not exist yet; a run left running by a bot that died is interrupted, for the target's bot to take up", async () => {
    const from = await database('bot.sqlite', [server]);
    const to = join(fx.folder, 'new', 'bot.shard-1.sqlite');
    const runId = reading(from, (store) => {
      store.db
        .prepare(
          `INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at) VALUES ('dead', 'bot', 1, 'elsewhere', ?, ?)`,
        )
        .run(dayTwo, dayTwo);
      const conversation = store.conversations.find(`second word1`)[0]!;
      const [latest] = store.runs.recent(conversation.id, 1);
      store.runs.start({
        id: 'cut-off',
        conversationId: conversation.id,
        instanceId: 'dead',
        triggerMessageIds: JSON.parse(latest!.trigger_message_ids) as number[],
        model: 'm',
      });
      return 'cut-off';
    });

    const result = await moveServer('--server', server, '--from', from, '--to', to);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `1 of its runs were marked running by a process that is gone: now interrupted, for the bot on ${to} to take up at its start.`,
    );
    reading(to, (store) => {
      const bot = startInstance(store, 'bot', { exclusive: true });
      const conversation = store.conversations.find(`second word1`)[0]!;
      expect(
        runLifecycle(store)
          .owed(conversation.id)
          .map((run) => [run.id, run.status]),
      ).toEqual([[runId, 'interrupted']]);
      bot.stop();
    });
  });

  it('--dry-run says what would move and changes nothing (nor creates the target)', async () => {
    const from = await database('bot.sqlite', [server]);
    const before = everything(from);
    const to = join(fx.folder, 'bot.shard-1.sqlite');

    const result = await moveServer('--server', server, '--from', from, '--to', to, '--dry-run');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      new RegExp(`^Would move server ${server} from ${from} to ${to}:\\n  conversations +2\\n`),
    );
    expect(result.stdout).toMatch(/Nothing was changed \(--dry-run\)\.\n$/);
    expect(existsSync(to)).toBe(false);
    expect(everything(from)).toEqual(before);
  });

  it('finishes a move cut off after its copy: deletes from the source only', async () => {
    const from = await database('bot.sqlite', [server]);
    const to = await database('bot.shard-1.sqlite', [other]);
    const before = everything(from);
    reading(from, (source) => reading(to, (target) => copyServer(source.db, target.db, server)));

    const result = await moveServer('--server', server, '--from', from, '--to', to);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      `The copy of server ${server} in ${to} was complete (a move cut off after its copy): deleting it from ${from}.`,
    );
    expect(reading(to, (store) => serverDump(store, server))).toEqual(before.server);
    expect(reading(from, (store) => serverDump(store, server).conversations)).toEqual([]);
  });
});
