import type { Database } from 'better-sqlite3';

export interface MessageRow {
  id: number;
  conversation_id: number;
  run_id: string | null;
  role: 'user' | 'assistant' | 'tool';
  author_id: string | null;
  author_name: string | null;
  content: string;
  /** JSON of the assistant's tool calls. */
  tool_calls: string | null;
  tool_call_id: string | null;
  /** An assistant message with tool calls, and its tool results, share the assistant message's id. */
  group_id: number | null;
  /**
   * For a row a run wrote: the last message that run answers. Memory reads the run's rows right
   * after it, before messages that arrived while the run went on. Null for people's messages.
   */
  answers_id: number | null;
  discord_message_id: string | null;
  created_at: number;
  token_count: number;
  /**
   * 1: a schedule's prompt (`/schedule`), stored as its creator's message: its run posts for
   * everyone, so no member's remembered facts go into it, after a restart too (migration 25).
   */
  scheduled: 0 | 1;
}

export interface NewMessage {
  conversationId: number;
  runId: string | null;
  role: MessageRow['role'];
  authorId: string | null;
  authorName: string | null;
  content: string;
  toolCalls: string | null;
  toolCallId: string | null;
  groupId: number | null;
  answersId: number | null;
  discordMessageId: string | null;
  tokenCount: number;
  /** A schedule's prompt (MessageRow.scheduled). */
  scheduled?: boolean;
}

/** Rows read for one memory window at the most, however small the messages. */
export const maxWindowRows = 400;

/**
 * Newest first, served by messages_by_conversation, so the rows read are bounded by the window. A
 * question a content check flagged is left out: the model never sees it; so is a run whose answer
 * was flagged (its calls, their results and its answer together, so every call keeps its result):
 * people never saw it, and the model is not to build on it.
 */
export const windowQuery = `SELECT * FROM messages WHERE conversation_id = ? AND id > ?
  AND NOT EXISTS (SELECT 1 FROM content_flags f WHERE f.message_id = messages.id AND f.target = 'question')
  AND NOT EXISTS (SELECT 1 FROM content_flags f WHERE f.run_id = messages.run_id AND f.target = 'answer')
  ORDER BY id DESC LIMIT ?`;

export function createMessageQueries(db: Database) {
  const insert = db.prepare(
    `INSERT INTO messages (conversation_id, run_id, role, author_id, author_name, content, tool_calls, tool_call_id, group_id, answers_id, discord_message_id, created_at, token_count, scheduled)
     VALUES (@conversationId, @runId, @role, @authorId, @authorName, @content, @toolCalls, @toolCallId, @groupId, @answersId, @discordMessageId, @createdAt, @tokenCount, @scheduled)
     ON CONFLICT (discord_message_id) DO NOTHING`,
  );
  const setOwnGroup = db.prepare<[number]>('UPDATE messages SET group_id = id WHERE id = ?');
  const newest = db.prepare<[number, number, number], MessageRow>(windowQuery);
  const edit = db.prepare<[string, number, string]>(
    'UPDATE messages SET content = ?, token_count = ? WHERE discord_message_id = ?',
  );
  const removeByDiscordId = db.prepare<[string]>('DELETE FROM messages WHERE discord_message_id = ?');
  const count = db.prepare<[number], { count: number }>(
    'SELECT count(*) AS count FROM messages WHERE conversation_id = ?',
  );
  const exists = db.prepare<[string], number>('SELECT 1 FROM messages WHERE discord_message_id = ?').pluck();
  const byId = db.prepare<[number], MessageRow>('SELECT * FROM messages WHERE id = ?');
  const newestId = db
    .prepare<[number], number | null>('SELECT max(id) FROM messages WHERE conversation_id = ?')
    .pluck();
  // Stored user messages no run was started for: answered after a restart.
  const unanswered = db.prepare<[number, number], MessageRow>(
    `SELECT * FROM messages WHERE conversation_id = ? AND role = 'user' AND id > ? ORDER BY id`,
  );

  return {
    /** The new row's id, or null when a message with that Discord id is already stored (a replayed event). */
    insert(message: NewMessage, now = Date.now()): number | null {
      const result = insert.run({ ...message, createdAt: now, scheduled: message.scheduled ? 1 : 0 });
      return result.changes === 0 ? null : Number(result.lastInsertRowid);
    },
    /** Inserts an assistant message with tool calls, whose id becomes its group's id, in one transaction. */
    insertGroupHead: db.transaction((message: Omit<NewMessage, 'groupId'>, now: number = Date.now()): number => {
      const id = Number(insert.run({ ...message, groupId: null, createdAt: now, scheduled: 0 }).lastInsertRowid);
      setOwnGroup.run(id);
      return id;
    }),
    /** Newest first, after `afterId`, at most `limit` rows: iterate and stop when the window is full. */
    iterateNewest: (conversationId: number, afterId: number, limit = maxWindowRows) =>
      newest.iterate(conversationId, afterId, limit),
    editByDiscordId: (discordMessageId: string, content: string, tokenCount: number) =>
      edit.run(content, tokenCount, discordMessageId).changes > 0,
    deleteByDiscordId: (discordMessageId: string) => removeByDiscordId.run(discordMessageId).changes > 0,
    count: (conversationId: number) => count.get(conversationId)!.count,
    hasDiscordId: (discordMessageId: string) => exists.get(discordMessageId) !== undefined,
    byId: (id: number) => byId.get(id),
    /** The newest message id of the conversation (0 when it has none). */
    newestId: (conversationId: number) => newestId.get(conversationId) ?? 0,
    /** User messages after `afterId` (the newest any run answered), oldest first. */
    userMessagesAfter: (conversationId: number, afterId: number) => unanswered.all(conversationId, afterId),
  };
}

export type MessageQueries = ReturnType<typeof createMessageQueries>;
