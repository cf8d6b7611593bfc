/**
 * A server's data as the bot writes it (through the real agent, memory sinks and step log against
 * the scripted model), and a canonical dump of it for comparing two databases: integer ids
 * replaced by what they stand for (a conversation by its key, a message by its rank among the
 * server's message ids, a reference to a deleted message by where it falls between them).
 */
import { vi } from 'vitest';
import type { ConversationRow } from '../../db/conversations.ts';
import type { Store } from '../../db/store.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { defaultAgentSettings, runAgent } from '../../src/agent/run-agent.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { conversationMemory } from '../../src/memory/conversation-memory.ts';
import type { TokenCounter } from '../../src/memory/token-counter.ts';
import { startInstance } from '../../src/run-log/instance.ts';
import { builtInTools } from '../../tools/index.ts';
import { modelClientFor, testContext } from './agent-harness.ts';
import { finalAnswer, type ScriptedModel, toolCalls } from './fake-model.ts';

export const memorySettings = { tokenBudget: 8000, messageTokenCap: 1500 };
export const dayOne = Date.parse('2026-03-01T10:00:00.000Z');
export const dayTwo = Date.parse('2026-03-02T10:00:00.000Z');

let discordIds = 1_000_000_000_000_000_000n;
/** A fresh snowflake-like id. */
export const snowflake = () => String(++discordIds);

/** One question and its run, through the real sinks; `toolFirst` makes the model call the calculator first. */
export async function exchange(
  store: Store,
  model: ScriptedModel,
  counter: TokenCounter,
  conversationId: number,
  instanceId: string,
  text: string,
  options: { toolFirst?: boolean } = {},
): Promise<{ triggerId: number; discordId: string }> {
  const memory = conversationMemory(store, counter, memorySettings);
  const discordId = snowflake();
  const conversation = store.conversations.byId(conversationId)!;
  const triggerId = memory.recordUserMessage(conversation, {
    authorId: 'u1',
    authorName: 'Ada',
    content: text,
    discordMessageId: discordId,
  })!;
  if (options.toolFirst) model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }));
  model.enqueue(finalAnswer(`answer to ${text}`));
  const { history, input } = memory.loadWindow(conversationId, [triggerId]);
  await runAgent({
    model: modelClientFor(model),
    systemPrompt: 'test',
    history,
    input,
    tools: buildToolRegistry(builtInTools),
    context: testContext,
    settings: defaultAgentSettings,
    onEvent: memory.runSink(conversationId, instanceId, { triggerIds: [triggerId] }, silentLogger),
  });
  // Posted, as the bot would: nothing is owed for it.
  store.runs.markDelivered(store.runs.recent(conversationId, 1)[0]!.id, 'posted');
  return { triggerId, discordId };
}

/**
 * Fills `guild`'s data over two days: two threads with tool calls, a memory reset, a run whose
 * question was deleted in Discord afterwards, a thread deleted (its tokens still counted),
 * reminders and a channel cursor. Uses fake Date
 * (the caller's `vi.useFakeTimers({ toFake: ['Date'] })`).
 */
export async function fillServer(
  store: Store,
  model: ScriptedModel,
  counter: TokenCounter,
  guild: string,
  instanceId: string,
  words: string,
): Promise<void> {
  const channelId = snowflake();
  const thread = (title: string) => {
    const threadId = snowflake();
    return store.conversations.ensure({
      key: `discord:${threadId}`,
      title,
      guildId: guild,
      channelId,
      threadId,
      startedById: 'u1',
      startedByName: 'Ada',
    });
  };
  vi.setSystemTime(dayOne);
  const first = thread(`first ${words}`);
  await exchange(store, model, counter, first.id, instanceId, `six times seven ${words}`, { toolFirst: true });
  await exchange(store, model, counter, first.id, instanceId, `thanks ${words}`);
  store.conversations.resetMemory(first.id, store.messages.newestId(first.id));
  // A thread deleted in Discord: its rows go, the tokens it spent stay counted in the day's total.
  const purged = thread(`purged ${words}`);
  await exchange(store, model, counter, purged.id, instanceId, `soon gone ${words}`);
  store.conversations.purge(purged.id);
  vi.setSystemTime(dayTwo);
  const gone = await exchange(store, model, counter, first.id, instanceId, `deleted question ${words}`, {
    toolFirst: true,
  });
  store.messages.deleteByDiscordId(gone.discordId);
  await exchange(store, model, counter, first.id, instanceId, `after the reset ${words}`, { toolFirst: true });
  const second = thread(`second ${words}`);
  await exchange(store, model, counter, second.id, instanceId, `second thread ${words}`);
  store.conversations.setLastSeenMessage(second.id, snowflake());
  const delivered = store.schedules.addReminder(
    { guildId: guild, channelId, userId: 'u1', userName: 'Ada', text: `water ${words}`, dueAt: dayOne },
    dayOne - 1000,
  );
  store.schedules.posted(store.schedules.claim(delivered, dayOne, null, 0, dayOne)!.id, snowflake());
  store.schedules.addReminder(
    { guildId: guild, channelId, userId: 'u2', userName: 'Bob', text: `call ${words}`, dueAt: dayTwo + 86_400_000 },
    dayOne,
  );
  store.channelCursors.advance(channelId, guild, snowflake());
}

/**
 * Fills each server's data (words `word<last digit of its id>`), a terminal conversation and a
 * reminder in a DM, by a bot instance that has stopped since.
 */
export async function fillDatabase(
  store: Store,
  model: ScriptedModel,
  counter: TokenCounter,
  servers: readonly string[],
): Promise<void> {
  const bot = startInstance(store, 'bot');
  for (const guild of servers) await fillServer(store, model, counter, guild, bot.id, `word${guild.slice(-1)}`);
  const terminal = store.conversations.ensure({
    key: 'terminal:console',
    title: 'console',
    guildId: null,
    channelId: null,
    startedById: null,
    startedByName: null,
  });
  await exchange(store, model, counter, terminal.id, bot.id, 'a terminal question');
  store.schedules.addReminder(
    { guildId: null, channelId: snowflake(), userId: 'u3', userName: 'Cy', text: 'in a DM', dueAt: dayTwo },
    dayOne,
  );
  bot.stop();
}

type Row = Record<string, unknown>;

/** The server's data with integer ids replaced by content (see the file's header): equal dumps, equal data. */
export function serverDump(store: Store, guild: string) {
  const all = <T = Row>(sql: string, ...params: unknown[]) => store.db.prepare(sql).all(...params) as T[];
  const conversations = all<ConversationRow>('SELECT * FROM conversations WHERE guild_id = ? ORDER BY id', guild);
  const keyOf = new Map(conversations.map((row) => [row.id, row.key]));
  const messages = all(
    'SELECT m.* FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.guild_id = ? ORDER BY m.id',
    guild,
  );
  const ids = messages.map((row) => row.id as number);
  const rank = (id: unknown) => {
    if (typeof id !== 'number' || id === 0) return id;
    const index = ids.indexOf(id);
    return index >= 0 ? `#${index}` : `gone after #${ids.filter((other) => other < id).length}`;
  };
  const runs = all(
    'SELECT r.* FROM runs r JOIN conversations c ON c.id = r.conversation_id WHERE c.guild_id = ? ORDER BY r.started_at, r.rowid',
    guild,
  );
  return {
    conversations: conversations.map(({ id: _id, ...row }) => ({
      ...row,
      memory_starts_after: rank(row.memory_starts_after),
    })),
    messages: messages.map(({ id, conversation_id, ...row }) => ({
      ...row,
      id: rank(id),
      conversation: keyOf.get(conversation_id as number),
      group_id: rank(row.group_id),
      answers_id: rank(row.answers_id),
    })),
    runs: runs.map(({ conversation_id, ...row }) => ({
      ...row,
      conversation: keyOf.get(conversation_id as number),
      trigger_message_ids: (JSON.parse(row.trigger_message_ids as string) as number[]).map(rank),
      steps: all('SELECT * FROM steps WHERE run_id = ? ORDER BY sequence', row.id).map(({ id: _id, ...step }) => step),
    })),
    reminders: all("SELECT * FROM schedules WHERE guild_id = ? AND kind = 'reminder' ORDER BY id", guild).map(
      ({ id: _id, ...row }) => row,
    ),
    channelCursors: all('SELECT * FROM channel_cursors WHERE guild_id = ? ORDER BY channel_id', guild),
    usageDays: all('SELECT * FROM guild_usage_days WHERE guild_id = ? ORDER BY day', guild),
  };
}

/** Every row of every table but the server's, ids and all: what a move must leave exactly as it was. */
export function everythingBut(store: Store, guild: string): Row {
  const all = (sql: string) => store.db.prepare(sql).all(guild);
  const notOfServer = "coalesce(c.guild_id, '') <> ?";
  return {
    conversations: all(`SELECT * FROM conversations c WHERE ${notOfServer} ORDER BY id`),
    messages: all(
      `SELECT m.* FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE ${notOfServer} ORDER BY m.id`,
    ),
    runs: all(
      `SELECT r.* FROM runs r JOIN conversations c ON c.id = r.conversation_id WHERE ${notOfServer} ORDER BY r.id`,
    ),
    steps: all(
      `SELECT s.* FROM steps s JOIN runs r ON r.id = s.run_id JOIN conversations c ON c.id = r.conversation_id WHERE ${notOfServer} ORDER BY s.id`,
    ),
    reminders: all(`SELECT * FROM schedules WHERE coalesce(guild_id, '') <> ? AND kind = 'reminder' ORDER BY id`),
    channelCursors: all(`SELECT * FROM channel_cursors WHERE guild_id <> ? ORDER BY channel_id`),
    usageDays: all(`SELECT * FROM guild_usage_days WHERE guild_id <> ? ORDER BY guild_id, day`),
  };
}
