/**
 * Retention sweeps (db/retention.ts) on a real database file: what is past each limit goes, in
 * batches, and the rest stays: newer rows, a model's tool call whose results are newer, a run still
 * owed its answer. Freed pages go back to the file system.
 */
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sweepExpired } from '../../db/retention.ts';
import type { Store } from '../../db/store.ts';
import { tempStore } from '../support/temp-store.ts';

const day = 24 * 60 * 60 * 1000;
const now = Date.UTC(2026, 10, 26);
const old = now - 40 * day;
const recent = now - 2 * day;

function fill(store: Store, oldMessages: number) {
  const { db } = store;
  db.prepare(
    "INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at, stopped_at) VALUES ('i', 'bot', 1, 'h', 0, 0, 0)",
  ).run();
  db.prepare("INSERT INTO conversations (key, title, guild_id, created_at) VALUES ('discord:1', 't', '9', ?)").run(old);
  const message = db.prepare(
    `INSERT INTO messages (conversation_id, role, author_id, content, tool_calls, tool_call_id, group_id, created_at, token_count)
     VALUES (1, ?, 'u', ?, ?, ?, ?, ?, 1)`,
  );
  db.transaction(() => {
    for (let index = 0; index < oldMessages; index++)
      message.run('user', `old words number ${index} ${'x'.repeat(200)}`, null, null, null, old);
  })();
  // A tool call made just before the limit, its result just after: the pair stays whole.
  const call = Number(message.run('assistant', '', '[{"id":"c"}]', null, null, now - 30 * day - 1000).lastInsertRowid);
  db.prepare('UPDATE messages SET group_id = id WHERE id = ?').run(call);
  message.run('tool', 'result', null, 'c', call, now - 30 * day + 1000);
  message.run('user', 'recent words', null, null, null, recent);
  const run = db.prepare(
    `INSERT INTO runs (id, conversation_id, instance_id, trigger_message_ids, status, model, started_at, ended_at, delivered_at)
     VALUES (?, 1, 'i', '[]', ?, 'm', ?, ?, ?)`,
  );
  run.run('old-answered', 'answered', old, old, old);
  run.run('old-owed', 'interrupted', old, old, null);
  run.run('recent', 'answered', recent, recent, recent);
  db.prepare(
    "INSERT INTO steps (run_id, sequence, kind, model_step, status, started_at) VALUES ('old-answered', 1, 'model-call', 1, 'ok', ?)",
  ).run(old);
  const firstId = db.prepare('SELECT min(id) FROM messages').pluck().get() as number;
  db.prepare(
    `INSERT INTO message_images (message_id, conversation_id, position, name, media_type, width, height, bytes)
     VALUES (?, 1, 0, 'cat.png', 'image/png', 1, 1, ?)`,
  ).run(firstId, Buffer.alloc(50_000, 1));
}

describe('retention sweeps', () => {
  it('delete what is past each limit in batches, keep the rest, and give the space back to the file', async () => {
    const { store, path } = tempStore();
    fill(store, 20_000);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const before = statSync(path).size;
    let pauses = 0;
    const { counts, longestLockMs } = await sweepExpired(
      store.db,
      { messageDays: 30, stepLogDays: 30, imageDays: 7 },
      { now, batch: 100, pause: async () => void pauses++ },
    );
    expect(counts).toEqual({ images: 1, messages: 20_000, runs: 1, facts: 0, knowledge: 0, reminders: 0 });
    // One pause after each batch that changed rows: 1 of images, 200 of messages, 1 of runs.
    expect(pauses).toBe(202);
    const contents = store.db.prepare('SELECT role, content FROM messages ORDER BY id').all();
    expect(contents).toEqual([
      { role: 'assistant', content: '' },
      { role: 'tool', content: 'result' },
      { role: 'user', content: 'recent words' },
    ]);
    expect(store.db.prepare('SELECT id FROM runs ORDER BY id').pluck().all()).toEqual(['old-owed', 'recent']);
    expect(store.db.prepare('SELECT count(*) FROM steps').pluck().get()).toBe(0);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const after = statSync(path).size;
    expect(after).toBeLessThan(before / 4);
    console.log(
      `retention: 20,000 messages swept in batches of 100, longest ${longestLockMs.toFixed(1)} ms; file ${before} → ${after} bytes`,
    );
    store.close();
  });

  it("empties an expired image's bytes and keeps its name for the window", async () => {
    const { store } = tempStore();
    fill(store, 1);
    await sweepExpired(store.db, { messageDays: null, stepLogDays: null, imageDays: 7 }, { now });
    const conversationId = 1;
    expect(store.images.newestOf(conversationId, 0, 10)).toEqual([
      expect.objectContaining({ name: 'cat.png', expired: 1 }),
    ]);
    expect(store.db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(4);
    store.close();
  });

  it('sizes its batches by the lock time they take, when no batch size is given', async () => {
    // A target no batch can meet: after the first batch of 50, every batch is the least, 5 rows.
    const slow = tempStore().store;
    fill(slow, 1000);
    let slowPauses = 0;
    await sweepExpired(
      slow.db,
      { messageDays: 30, stepLogDays: null, imageDays: null },
      { now, targetLockMs: 0, pause: async () => void slowPauses++ },
    );
    expect(slowPauses).toBe(1 + (1000 - 50) / 5);
    // A target every batch meets: sizes double from 50 (50, 100, 200, 400, then the 250 left).
    const quick = tempStore().store;
    fill(quick, 1000);
    let quickPauses = 0;
    const { counts } = await sweepExpired(
      quick.db,
      { messageDays: 30, stepLogDays: null, imageDays: null },
      { now, targetLockMs: 1e9, pause: async () => void quickPauses++ },
    );
    expect(counts.messages).toBe(1000);
    expect(quickPauses).toBe(5);
    slow.close();
    quick.close();
  });

  it("deletes members' reminders once posted or given up before the limit, and keeps those still owed", async () => {
    const { store } = tempStore();
    const remind = (text: string, dueAt: number) =>
      store.schedules.addReminder(
        { guildId: '9', channelId: '1', userId: 'u', userName: 'Ada', text, dueAt },
        dueAt - day,
      );
    const settle = (id: number, dueAt: number, state: 'posted' | 'failed' | null) => {
      const run = store.schedules.claim(id, dueAt, null, 0, dueAt)!;
      if (state === 'posted') store.schedules.posted(run.id, 'm');
      if (state === 'failed') store.schedules.failed(run.id, 'no channel');
    };
    const postedLongAgo = remind('posted long ago', old);
    settle(postedLongAgo, old, 'posted');
    settle(remind('given up long ago', old), old, 'failed');
    settle(remind('posted lately', recent), recent, 'posted');
    settle(remind('claimed long ago, still being posted', old), old, null);
    remind('not due yet', now + day);

    const { counts } = await sweepExpired(store.db, { messageDays: 30, stepLogDays: null, imageDays: null }, { now });

    expect(counts.reminders).toBe(2);
    const left = store.db.prepare("SELECT prompt FROM schedules WHERE kind = 'reminder' ORDER BY id").pluck().all();
    expect(left).toEqual(['posted lately', 'claimed long ago, still being posted', 'not due yet']);
    expect(
      store.db.prepare('SELECT count(*) FROM schedule_runs WHERE schedule_id = ?').pluck().get(postedLongAgo),
    ).toBe(0);
    store.close();
  });
});
