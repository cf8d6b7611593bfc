/**
 * `npm run move-server` as an operator runs it: the compiled script (dist/move-server.js) as a
 * process, on real databases filled by the real agent. A move exits 0 and says what it moved;
 * every refusal exits 1 with one line on stderr, no stack trace, and both databases as they were.
 */
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { copyServer } from '../db/move-server.ts';
import { openStore, type Store } from '../db/store.ts';
import { runLifecycle } from '../src/conversation/run-lifecycle.ts';
import { loadTokenCounter, type TokenCounter } from '../src/memory/token-counter.ts';
import { DatabaseInUseError, startInstance } from '../src/run-log/instance.ts';
import { holdAlone, MoveRefusedError } from '../src/terminal/move-server-databases.ts';
import { type HeldInstance, startHeldInstance } from './support/instance-process.ts';
import { runScript } from './support/run-process.ts';
import { type ScriptedModel, startScriptedModel } from './support/scripted-model.ts';
import { dayTwo, everythingBut, fillDatabase, serverDump } from './support/server-data.ts';

const server = '300000000000000001';
const other = '300000000000000002';

let model: ScriptedModel;
let counter: TokenCounter;
let folder: string;
let held: HeldInstance[] = [];
beforeAll(async () => {
  model = await startScriptedModel();
  counter = await loadTokenCounter('gpt-4.1-mini');
});
afterAll(async () => {
  await model.close();
});
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'move-server-'));
});
afterEach(async () => {
  await Promise.all(held.map((instance) => instance.close()));
  held = [];
});

/** A database file in the test's folder, filled with these servers' data, closed again. */
async function database(name: string, servers: string[]): Promise<string> {
  const path = join(folder, name);
  const store = openStore(path);
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    await fillDatabase(store, model, counter, servers);
  } finally {
    vi.useRealTimers();
    store.close();
  }
  return path;
}

/** Reads a database (opened and closed around `read`). */
function reading<T>(path: string, read: (store: Store) => T): T {
  const store = openStore(path);
  try {
    return read(store);
  } finally {
    store.close();
  }
}

const everything = (path: string) =>
  reading(path, (store) => ({ server: serverDump(store, server), others: everythingBut(store, server) }));

const moveServer = (...args: string[]) => runScript('src/move-server.ts', { args, cwd: folder });

/** A refusal: exit 1, one line on stderr, nothing on stdout. */
function expectRefusal(result: { code: number | null; stdout: string; stderr: string }, line: RegExp) {
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^[^\n]+\n$/);
  expect(result.stderr.trim()).toMatch(line);
  expect(result.code).toBe(1);
}

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
    expect(result.stdout).toMatch(/ {2}reminders +2\n {2}channel_cursors +1\n {2}guild_usage_days +2\n/);
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
    const to = join(folder, 'new', 'bot.shard-1.sqlite');
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
    const to = join(folder, 'bot.shard-1.sqlite');

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

describe('npm run move-server refuses', () => {
  it('a target with other data of the server, changing nothing', async () => {
    const from = await database('bot.sqlite', [server]);
    const to = await database('bot.shard-1.sqlite', [server]);
    const before = [everything(from), everything(to)];

    expectRefusal(
      await moveServer('--server', server, '--from', from, '--to', to),
      new RegExp(
        `^${to} already holds other data of server ${server} \\(2 conversations, .*\\) than ${from} \\(.*\\): nothing was changed\\.$`,
      ),
    );
    expect([everything(from), everything(to)]).toEqual(before);
  });

  it('a database a bot is running on, source or target (a real process holding its instance)', async () => {
    const from = await database('bot.sqlite', [server]);
    const to = await database('bot.shard-1.sqlite', [other]);
    for (const path of [from, to]) {
      // (The held process adds a conversation of its own, with a run, before it says it is ready.)
      const bot = await startHeldInstance(path, 'bot');
      held.push(bot);
      const before = [everything(from), everything(to)];
      expectRefusal(
        await moveServer('--server', server, '--from', from, '--to', to),
        new RegExp(
          `^a bot \\(process ${bot.pid} on .+\\) is using ${path}: stop it before moving a server's data\\. Nothing was changed\\.$`,
        ),
      );
      expect([everything(from), everything(to)]).toEqual(before);
      held = held.filter((instance) => instance !== bot);
      await bot.close();
    }
  });

  it('a server that neither database holds, and removes the target it had to create', async () => {
    const from = await database('bot.sqlite', [other]);
    const to = join(folder, 'bot.shard-1.sqlite');
    expectRefusal(
      await moveServer('--server', server, '--from', from, '--to', to),
      new RegExp(`^Neither ${from} nor ${to} holds any data of server ${server}: nothing to move\\.$`),
    );
    expect(existsSync(to)).toBe(false);
  });

  it('a database from a newer version', async () => {
    const from = await database('bot.sqlite', [server]);
    const to = join(folder, 'future.sqlite');
    reading(to, (store) => store.db.pragma('user_version = 99'));
    expectRefusal(
      await moveServer('--server', server, '--from', from, '--to', to),
      /^The database .*future\.sqlite has schema version 99, but this version of the bot knows only up to \d+\./,
    );
  });

  it('bad arguments, each in one line', async () => {
    const from = await database('bot.sqlite', [server]);
    symlinkSync(from, join(folder, 'link.sqlite'));
    const cases: [string[], RegExp][] = [
      [[], /^Missing --server, --from, --to\. npm run move-server -- --help says how to use it\.$/],
      [
        ['--server', '12345', '--from', from, '--to', 'x.sqlite'],
        /^--server must be a Discord server id, 17 to 20 digits \(it is "12345"\)\.$/,
      ],
      [
        ['--server', server, '--from', 'nowhere.sqlite', '--to', 'x.sqlite'],
        /^There is no database at nowhere\.sqlite \(--from\): nothing to move\.$/,
      ],
      [
        ['--server', server, '--from', from, '--to', 'link.sqlite'],
        /^--from and --to are the same database \(.*bot\.sqlite\)\.$/,
      ],
      [
        ['--server', server, '--from', from, '--to', 'x.sqlite', '--force'],
        /^Unknown option '--force'.* npm run move-server -- --help says how to use it\.$/,
      ],
    ];
    for (const [args, line] of cases) expectRefusal(await moveServer(...args), line);
    const help = await moveServer('--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(
      /^usage: npm run move-server -- --server ID --from DATABASE --to DATABASE \[--dry-run\]\n/,
    );
  });
});

describe('while a move holds a database', () => {
  it('no bot, chat or other move starts on it, with a message that says to wait', async () => {
    const path = await database('bot.sqlite', []);
    const move = await startHeldInstance(path, 'move-server');
    held.push(move);
    expectRefusal(
      await moveServer('--server', server, '--from', path, '--to', join(folder, 'other.sqlite')),
      new RegExp(
        `^a move-server \\(process ${move.pid} on .+\\) is working on ${path}: wait for it to end\\. Nothing was changed\\.$`,
      ),
    );
    reading(path, (store) => {
      for (const [kind, exclusive] of [
        ['bot', true],
        ['chat', false],
      ] as const) {
        const start = () => startInstance(store, kind, { exclusive });
        expect(start).toThrow(DatabaseInUseError);
        expect(start).toThrow(
          `A move-server (process ${move.pid} on ${hostname()}) needs this database to itself for now: start again once it has ended.`,
        );
      }
    });
  });

  it('nor does a move start on a database in use; holding two is all or none', async () => {
    const a = openStore(await database('a.sqlite', []));
    const b = openStore(await database('b.sqlite', []));
    const chat = startInstance(b, 'chat');
    try {
      expect(() =>
        holdAlone([
          { path: 'a.sqlite', store: a },
          { path: 'b.sqlite', store: b },
        ]),
      ).toThrow(
        new MoveRefusedError(
          `b.sqlite: A chat (process ${process.pid} on ${hostname()}) is using this database: stop it first. Nothing was moved.`,
        ),
      );
      // The hold taken on a.sqlite was let go: a bot starts there.
      startInstance(a, 'bot', { exclusive: true }).stop();
    } finally {
      chat.stop();
      a.close();
      b.close();
    }
  });
});
