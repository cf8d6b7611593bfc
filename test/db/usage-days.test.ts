import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../db/migrations.ts';
import { openDatabase } from '../../db/open-database.ts';
import { openStore } from '../../db/store.ts';
import { tempStore } from '../support/temp-store.ts';

const day = 86_400_000;
const monday = Date.UTC(2026, 10, 23);

function conversation(store: ReturnType<typeof tempStore>['store'], key: string, guildId: string | null) {
  if (!store.db.prepare("SELECT 1 FROM instances WHERE id = 'i'").get()) store.instances.register('i', 'bot');
  return store.conversations.ensure({
    key,
    title: key,
    guildId,
    channelId: guildId ? '1' : null,
    startedById: 'u',
    startedByName: 'U',
  }).id;
}

describe('tokens per server per day (the daily budget)', () => {
  it('follows every run’s tokens as they grow, by server and by the day the run started', () => {
    const { store } = tempStore();
    const first = conversation(store, 'a', 'guild-1');
    const second = conversation(store, 'b', 'guild-1');
    const other = conversation(store, 'c', 'guild-2');
    const terminal = conversation(store, 'd', null);
    const run = (id: string, conversationId: number, at: number) =>
      store.runs.start({ id, conversationId, instanceId: 'i', triggerMessageIds: [], model: 'm' }, at);
    run('r1', first, monday + 1000);
    run('r2', second, monday + 2000);
    run('r3', other, monday + 3000);
    run('r4', first, monday + day + 5);
    run('r5', terminal, monday + 10);
    store.runs.addUsage('r1', 10, 5, 15);
    store.runs.addUsage('r1', 20, 5, 25);
    store.runs.addUsage('r2', 1, 1, 2);
    store.runs.addUsage('r3', 100, 0, 100);
    store.runs.addUsage('r4', 7, 0, 7);
    store.runs.addUsage('r5', 1000, 0, 1000);
    store.runs.finish('r2', {
      status: 'answered',
      stopReason: null,
      promptTokens: 3,
      completionTokens: 3,
      totalTokens: 6,
      error: null,
      errorCode: null,
    });

    expect(store.runs.tokensOnDay('guild-1', monday)).toBe(15 + 25 + 6);
    expect(store.runs.tokensOnDay('guild-2', monday)).toBe(100);
    expect(store.runs.tokensOnDay('guild-1', monday + day)).toBe(7);
    expect(store.runs.tokensOnDay('guild-3', monday)).toBe(0);
    // The same as summing the day's runs, which is what the table stands in for.
    const summed = store.db
      .prepare(
        'SELECT sum(r.total_tokens) FROM runs r JOIN conversations c ON c.id = r.conversation_id WHERE c.guild_id = ? AND r.started_at >= ? AND r.started_at < ?',
      )
      .pluck()
      .get('guild-1', monday, monday + day);
    expect(summed).toBe(46);
  });

  it('is filled from the runs already there when an older database is migrated', () => {
    // A database as a bot before this migration left it: built at version 3, whatever comes later.
    const path = join(mkdtempSync(join(tmpdir(), 'store-')), 'bot.sqlite');
    const db = openDatabase(path, { migrations: migrations.filter((migration) => migration.version <= 3) });
    db.prepare(
      "INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at) VALUES ('i', 'bot', 1, 'h', 0, 0)",
    ).run();
    const id = db
      .prepare("INSERT INTO conversations (key, title, guild_id, created_at) VALUES ('a', 'a', 'guild-1', 0)")
      .run().lastInsertRowid;
    db.prepare(
      "INSERT INTO runs (id, conversation_id, instance_id, trigger_message_ids, status, model, started_at, total_tokens) VALUES ('r1', ?, 'i', '[]', 'answered', 'm', ?, 42)",
    ).run(id, monday + 1);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    db.close();

    const reopened = openStore(path);
    expect(reopened.runs.tokensOnDay('guild-1', monday)).toBe(42);
    reopened.close();
  });
});
