/**
 * Moving a server's data between two real databases, filled by the real agent and sinks: nothing
 * lost or changed on the way (a canonical dump with ids replaced by content), and what the bot
 * reads from the moved rows (search, memory windows, daily tokens, runs to take up) the same.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { copyServer, deleteServer, planMove } from '../../db/move-server.ts';
import type { Store } from '../../db/store.ts';
import { runLifecycle } from '../../src/conversation/run-lifecycle.ts';
import { conversationMemory } from '../../src/memory/conversation-memory.ts';
import { loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';
import { startInstance } from '../../src/run-log/instance.ts';
import { holdAlone } from '../../db/move-server-databases.ts';
import { type ScriptedModel, startScriptedModel } from '../support/fake-model.ts';
import {
  dayOne,
  dayTwo,
  everythingBut,
  fillDatabase,
  memorySettings,
  serverDump,
  snowflake,
} from '../support/server-data.ts';
import { tempStore } from '../support/temp-store.ts';

const moved = '100000000000000001';
const other = '100000000000000002';
const targets = '100000000000000003';

let model: ScriptedModel;
let counter: TokenCounter;
let stores: Store[] = [];
beforeAll(async () => {
  model = await startScriptedModel();
  counter = await loadTokenCounter('gpt-4.1-mini');
});
afterAll(async () => {
  await model.close();
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  for (const store of stores) store.close();
  stores = [];
});

/** A database with the servers' data (and a terminal conversation and a DM reminder). */
async function database(...servers: string[]): Promise<Store> {
  const { store } = tempStore();
  stores.push(store);
  await fillDatabase(store, model, counter, servers);
  return store;
}

/** What `npm run move-server` does once both databases are held. */
function move(from: Store, to: Store, guild = moved) {
  const { state } = planMove(from.db, to.db, guild);
  expect(['to-copy', 'copied']).toContain(state);
  if (state === 'to-copy') copyServer(from.db, to.db, guild);
  deleteServer(from.db, guild);
}

/**
 * The full-text index holds exactly the user and assistant messages that have text, by their ids
 * (its rows per document, in FTS5's docsize table), and is sound inside. Not the integrity check
 * against the content table (rank 1): that expects every row of messages, tool results included.
 */
function ftsIntact(store: Store) {
  store.db.prepare(`INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')`).run();
  const ids = (sql: string) => store.db.prepare(sql).pluck().all();
  expect(ids('SELECT id FROM messages_fts_docsize ORDER BY id')).toEqual(
    ids(`SELECT id FROM messages WHERE role IN ('user', 'assistant') AND content <> '' ORDER BY id`),
  );
}

describe('moving a server', () => {
  it('there and back loses and changes nothing, of that server or of any other, though every integer id collides', async () => {
    const a = await database(moved, other);
    const b = await database(targets);
    const before = serverDump(a, moved);
    const othersInA = everythingBut(a, moved);
    const othersInB = everythingBut(b, moved);
    expect(before.messages.length).toBeGreaterThan(10);
    // The target's ids start where the source's do: every one must be given anew.
    expect(b.conversations.byId(1)?.guild_id).toBe(targets);

    move(a, b);
    expect(serverDump(b, moved)).toEqual(before);
    expect(planMove(a.db, b.db, moved).state).toBe('moved');
    expect(everythingBut(a, moved)).toEqual(othersInA);
    expect(everythingBut(b, moved)).toEqual(othersInB);
    ftsIntact(a);
    ftsIntact(b);

    move(b, a);
    expect(serverDump(a, moved)).toEqual(before);
    expect(serverDump(b, moved).messages).toEqual([]);
    expect(everythingBut(a, moved)).toEqual(othersInA);
    expect(everythingBut(b, moved)).toEqual(othersInB);
    ftsIntact(a);
    ftsIntact(b);
  });

  it("the target's search finds the moved messages, within a conversation only after its memory reset; the source's no longer does", async () => {
    const a = await database(moved);
    const b = await database(targets);
    const [first] = serverDump(a, moved).conversations;
    move(a, b);

    expect(b.search.inServer(moved, 'after the reset word1', 5).map((hit) => hit.snippet)).toEqual([
      '**after** **the** **reset** **word1**',
      'answer to **after** **the** **reset** **word1**',
    ]);
    expect(b.search.inServer(moved, 'thanks word1', 5)).toHaveLength(2);
    // Before the reset: found in the server, not in the conversation (memory_starts_after kept its place).
    expect(b.search.inConversation(first!.key, 'thanks word1', 5)).toEqual([]);
    expect(b.search.inConversation(first!.key, 'after the reset word1', 5)).toHaveLength(2);
    expect(b.search.inServer(targets, 'thanks word3', 5)).toHaveLength(2);
    expect(a.search.inServer(moved, 'thanks word1', 5)).toEqual([]);
  });

  it("the target's tokens per day for the server equal the source's (the runs' insert trigger does not count them twice)", async () => {
    const a = await database(moved);
    const b = await database(targets);
    const days = [dayOne, dayTwo].map((day) => a.runs.tokensOnDay(moved, day));
    const perDay = a.usage.perDay(moved, 0);
    expect(days.every((tokens) => tokens > 0)).toBe(true);
    // Day one counts the tokens of a thread deleted since: more than its runs left add up to.
    expect(days[0]).toBeGreaterThan(perDay.find((day) => day.day === '2026-03-01')!.tokens);
    move(a, b);

    expect([dayOne, dayTwo].map((day) => b.runs.tokensOnDay(moved, day))).toEqual(days);
    expect(b.usage.perDay(moved, 0)).toEqual(perDay);
    expect([dayOne, dayTwo].map((day) => a.runs.tokensOnDay(moved, day))).toEqual([0, 0]);
  });

  it('reminders and channel cursors go with the server; other servers and DMs keep theirs', async () => {
    const a = await database(moved, other);
    const b = await database(targets);
    const later = dayTwo + 2 * 86_400_000;
    const due = (store: Store) => store.schedules.due(later).map((row) => [row.guild_id, row.prompt]);
    const cursors = (store: Store) => store.channelCursors.recent(0, 10).map((row) => row.guild_id);
    move(a, b);

    expect(due(b)).toEqual(
      expect.arrayContaining([
        [moved, 'call word1'],
        [targets, 'call word3'],
      ]),
    );
    expect(due(a)).toEqual(
      expect.arrayContaining([
        [other, 'call word2'],
        [null, 'in a DM'],
      ]),
    );
    expect(due(a).some(([guild]) => guild === moved)).toBe(false);
    expect(cursors(b).sort()).toEqual([moved, targets]);
    expect(cursors(a)).toEqual([other]);
  });

  it("each moved conversation's memory window reads the same in the target", async () => {
    const a = await database(moved);
    const b = await database(targets);
    const windows = (store: Store) =>
      serverDump(store, moved).conversations.map((row) => {
        const conversation = store.conversations.byKey(row.key)!;
        const [latest] = store.runs.recent(conversation.id, 1);
        const triggers = JSON.parse(latest!.trigger_message_ids) as number[];
        const memory = conversationMemory(store, counter, memorySettings);
        return [
          memory.loadWindow(conversation.id, triggers),
          memory.loadWindow(conversation.id, triggers, { resuming: true }),
        ];
      });
    const before = windows(a);
    expect(JSON.stringify(before)).toContain('after the reset word1');
    move(a, b);
    expect(windows(b)).toEqual(before);
  });

  it("a run left running by a bot that died is interrupted by the move's hold on the source, and the target's bot takes it up", async () => {
    const a = await database(moved);
    const b = await database(targets);
    const [first] = serverDump(a, moved).conversations;
    const conversation = a.conversations.byKey(first!.key)!;
    // A bot on another host, silent for an hour, with no lock file: gone.
    a.db
      .prepare(
        `INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at) VALUES ('dead', 'bot', 1, 'elsewhere', ?, ?)`,
      )
      .run(dayTwo, dayTwo);
    const question = a.messages.insert({
      conversationId: conversation.id,
      runId: null,
      role: 'user',
      authorId: 'u1',
      authorName: 'Ada',
      content: 'cut off mid-run',
      toolCalls: null,
      toolCallId: null,
      groupId: null,
      answersId: null,
      discordMessageId: snowflake(),
      tokenCount: 5,
    })!;
    a.runs.start({
      id: 'cut-off',
      conversationId: conversation.id,
      instanceId: 'dead',
      triggerMessageIds: [question],
      model: 'm',
    });
    vi.setSystemTime(dayTwo + 3_600_000);

    const held = holdAlone([
      { path: 'a', store: a },
      { path: 'b', store: b },
    ]);
    move(a, b);
    for (const instance of held) instance.stop();

    const bot = startInstance(b, 'bot', { exclusive: true });
    const inTarget = b.conversations.byKey(conversation.key)!;
    const lifecycle = runLifecycle(b);
    const owed = lifecycle.owed(inTarget.id);
    expect(owed.map((run) => [run.id, run.status, run.instance_id])).toEqual([['cut-off', 'interrupted', 'dead']]);
    const takeUp = lifecycle.resumption(owed[0]!);
    expect(takeUp.kind).toBe('continue');
    const [trigger] = (takeUp as { triggerIds: number[] }).triggerIds;
    expect(b.messages.byId(trigger!)?.content).toBe('cut off mid-run');
    expect(lifecycle.latestAnswered(inTarget.id)).toBe(trigger);
    expect(b.instances.byId('dead')?.stopped_at).not.toBeNull();
    bot.stop();
  });
});

describe('a move cut off, or a target that holds the server already', () => {
  it('after the copy alone (the deletion never ran) both hold it; the plan says copied, and deleting finishes the move', async () => {
    const a = await database(moved);
    const b = await database(targets);
    const before = serverDump(a, moved);
    copyServer(a.db, b.db, moved);

    expect(planMove(a.db, b.db, moved).state).toBe('copied');
    move(a, b);
    expect(serverDump(b, moved)).toEqual(before);
    expect(planMove(a.db, b.db, moved).state).toBe('moved');
  });

  it('a target with other data of the server is a conflict: a conversation of its own, or a copy missing rows', async () => {
    const a = await database(moved);
    const b = await database(moved);
    expect(planMove(a.db, b.db, moved).state).toBe('conflict');

    const c = await database(targets);
    copyServer(a.db, c.db, moved);
    c.db.prepare(`DELETE FROM messages WHERE id = (SELECT max(id) FROM messages)`).run();
    expect(planMove(a.db, c.db, moved).state).toBe('conflict');
  });

  it('copying into a target that holds data of the server is refused inside the copy too, copying nothing', async () => {
    const a = await database(moved);
    const b = await database(moved);
    const before = serverDump(b, moved);
    expect(() => copyServer(a.db, b.db, moved)).toThrow('the target holds data of this server already');
    expect(serverDump(b, moved)).toEqual(before);
  });

  it('neither holding it is absent', async () => {
    const a = await database(other);
    const b = await database(targets);
    expect(planMove(a.db, b.db, moved).state).toBe('absent');
  });
});
