/**
 * A conversation's running summary follows its messages (migration 15's triggers, on a real
 * database): an edit of a covered message makes it stale and empties it, a covered message that
 * expires (db/retention.ts) or is forgotten (db/forget-member.ts) takes it with it, and so does
 * /reset; a summary written while the conversation changed under it is not stored.
 */
import { describe, expect, it } from 'vitest';
import { forgetMember } from '../../db/forget-member.ts';
import type { NewSummary, SummaryRun } from '../../db/memory-summaries.ts';
import { sweepExpired } from '../../db/retention.ts';
import type { Store } from '../../db/store.ts';
import { tempStore } from '../support/temp-store.ts';

const day = 24 * 60 * 60 * 1000;
const now = Date.UTC(2026, 10, 26);
const guild = '200000000000000001';

/** A conversation of ten messages by ada and bob, from 40 days ago to today, the first six summed up. */
function world(): { store: Store; conversationId: number; ids: number[] } {
  const { store } = tempStore();
  store.db
    .prepare(
      "INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at) VALUES ('i', 'bot', 1, 'h', 0, 0)",
    )
    .run();
  const conversation = store.conversations.ensure({
    key: 'discord:1',
    title: 't',
    guildId: guild,
    channelId: '2',
    startedById: 'ada',
    startedByName: 'Ada',
  });
  const insert = store.db.prepare(
    `INSERT INTO messages (conversation_id, role, author_id, author_name, content, discord_message_id, created_at, token_count)
     VALUES (?, 'user', ?, ?, ?, ?, ?, 5)`,
  );
  const ids = Array.from({ length: 10 }, (_, index) => {
    const author = index === 2 ? 'bob' : 'ada';
    const createdAt = now - (40 - index * 4) * day;
    return Number(
      insert.run(conversation.id, author, author, `words ${index}`, `d${index}`, createdAt).lastInsertRowid,
    );
  });
  summarise(store, conversation.id, ids.slice(0, 6));
  return { store, conversationId: conversation.id, ids };
}

function summaryRun(conversationId: number, summarisedIds: readonly number[]): SummaryRun {
  return {
    id: `run-${summarisedIds.join('-')}`,
    conversationId,
    instanceId: 'i',
    summarisedIds,
    model: 'm',
    modelName: 'm',
    startedAt: now,
    promptTokens: 10,
    completionTokens: 5,
    summary: 'Bob said words 2.',
    error: null,
    errorCode: null,
    note: 'summary',
  };
}

function summarise(
  store: Store,
  conversationId: number,
  ids: readonly number[],
  replaces: NewSummary['replaces'] = null,
  read = ids.map((id) => ({ id, content: store.messages.byId(id)!.content })),
) {
  const summary: NewSummary = {
    conversationId,
    summary: 'Bob said words 2.',
    firstMessageId: ids[0]!,
    lastMessageId: ids.at(-1)!,
    tokens: 8,
    replaces,
    memoryStartsAfter: 0,
    read,
  };
  return store.summaries.record(summaryRun(conversationId, ids), summary, now);
}

describe('a conversation summary', () => {
  it('is stored with its run, a settled summary run whose tokens count', () => {
    const { store, conversationId, ids } = world();
    expect(store.summaries.of(conversationId)).toMatchObject({
      summary: 'Bob said words 2.',
      stale: 0,
      last_message_id: ids[5],
    });
    expect(store.runs.byId(`run-${ids.slice(0, 6).join('-')}`)).toMatchObject({
      kind: 'summary',
      status: 'answered',
      total_tokens: 15,
      delivered_at: now,
    });
    expect(store.runs.toResume(conversationId)).toEqual([]);
  });

  it('goes stale and empty when a covered message is edited, not when an uncovered one is or the text stays', () => {
    const { store, conversationId } = world();
    store.messages.editByDiscordId('d8', 'words 8 edited', 5);
    store.messages.editByDiscordId('d1', 'words 1', 5); // As Discord's embed updates: the same text.
    expect(store.summaries.of(conversationId)).toMatchObject({ stale: 0, summary: 'Bob said words 2.' });
    store.messages.editByDiscordId('d1', 'words 1 edited', 5);
    expect(store.summaries.of(conversationId)).toMatchObject({ stale: 1, summary: '', tokens: 0 });
  });

  it('is deleted when a covered message is deleted, and by /reset', () => {
    const { store, conversationId, ids } = world();
    store.messages.deleteByDiscordId('d9');
    expect(store.summaries.of(conversationId)).toBeDefined();
    store.messages.deleteByDiscordId('d3');
    expect(store.summaries.of(conversationId)).toBeUndefined();
    summarise(store, conversationId, [ids[4]!, ids[5]!]);
    store.conversations.resetMemory(conversationId, ids[9]!);
    expect(store.summaries.of(conversationId)).toBeUndefined();
  });

  it('is deleted when messages it covers expire (MESSAGE_RETENTION_DAYS), kept when none it covers does', async () => {
    const { store, conversationId } = world();
    // Messages 0 to 5 are 40 to 20 days old: a 50-day limit takes none of them.
    await sweepExpired(store.db, { messageDays: 50, stepLogDays: null, imageDays: null }, { now });
    expect(store.summaries.of(conversationId)).toBeDefined();
    await sweepExpired(store.db, { messageDays: 30, stepLogDays: null, imageDays: null }, { now });
    expect(store.summaries.of(conversationId)).toBeUndefined();
  });

  it("goes with a member's forgotten words (/forget-me), with the summary run that read them", () => {
    const { store, conversationId, ids } = world();
    const runId = `run-${ids.slice(0, 6).join('-')}`;
    forgetMember(store.db, guild, 'carol');
    expect(store.summaries.of(conversationId)).toBeDefined();
    forgetMember(store.db, guild, 'bob');
    expect(store.summaries.of(conversationId)).toBeUndefined();
    // Its step held the summary's words: the run that summed up bob's message goes too.
    expect(store.runs.byId(runId)).toBeUndefined();
    expect(store.steps.ofRun(runId)).toEqual([]);
  });

  it('written while the member who wrote one of its messages was forgotten is not stored, nor its words', () => {
    const { store, conversationId, ids } = world();
    // No summary yet: the first summary call of the conversation is in flight when bob is forgotten.
    store.db.prepare('DELETE FROM memory_summaries').run();
    store.db.prepare("DELETE FROM runs WHERE kind = 'summary'").run();
    const read = ids.slice(0, 6).map((id) => ({ id, content: store.messages.byId(id)!.content }));
    forgetMember(store.db, guild, 'bob');
    expect(summarise(store, conversationId, ids.slice(0, 6), null, read)).toBe(false);
    expect(store.summaries.of(conversationId)).toBeUndefined();
    const runId = `run-${ids.slice(0, 6).join('-')}`;
    // The run is kept for its tokens (the daily budget), without the words it wrote.
    expect(store.runs.byId(runId)).toMatchObject({ kind: 'summary', status: 'failed' });
    expect(store.steps.ofRun(runId)).toEqual([]);
  });

  it('written while a message it read, not yet covered by any summary, was edited is not stored', () => {
    const { store, conversationId, ids } = world();
    const before = store.summaries.of(conversationId)!;
    // The call read messages 0–7; message 7 (past the stored summary's range) is edited during it.
    const read = ids.slice(0, 8).map((id) => ({ id, content: store.messages.byId(id)!.content }));
    store.messages.editByDiscordId('d7', 'words 7 edited', 5);
    expect(summarise(store, conversationId, ids.slice(0, 8), before, read)).toBe(false);
    expect(store.summaries.of(conversationId)).toMatchObject({ last_message_id: ids[5] });
  });

  it('written while the conversation changed under it (an edit) is not stored; its run is', () => {
    const { store, conversationId, ids } = world();
    const before = store.summaries.of(conversationId)!;
    store.messages.editByDiscordId('d0', 'words 0 edited', 5);
    expect(summarise(store, conversationId, ids.slice(0, 8), before)).toBe(false);
    expect(store.summaries.of(conversationId)).toMatchObject({ stale: 1 });
    expect(store.runs.byId(`run-${ids.slice(0, 8).join('-')}`)).toMatchObject({ kind: 'summary' });
    store.db.prepare('DELETE FROM runs WHERE id = ?').run(`run-${ids.slice(0, 8).join('-')}`);
    expect(summarise(store, conversationId, ids.slice(0, 8))).toBe(true);
    expect(store.summaries.of(conversationId)).toMatchObject({ stale: 0, last_message_id: ids[7] });
  });
});
