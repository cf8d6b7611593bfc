import type { Database } from 'better-sqlite3';

/**
 * A condition true of direct-message conversations, on the conversations table named `alias`: a
 * Discord conversation with no server (its key is its DM channel's: src/discord/inbound/direct-messages.ts).
 */
export const directMessageConversation = (alias: string) =>
  `${alias}.guild_id IS NULL AND ${alias}.key LIKE 'discord:%'`;

/** Whether the conversation is a direct-message one (see `directMessageConversation`). */
export const isDirectMessageConversation = (conversation: Pick<ConversationRow, 'guild_id' | 'key'>) =>
  conversation.guild_id === null && conversation.key.startsWith('discord:');

/**
 * Where a table needs a server id (setting_changes, forgets), DMs' is "@me": Discord's own name for
 * them in its addresses (https://discord.com/channels/@me/…). No server has it: ids are digits.
 */
export const directMessagesServerId = '@me';

/**
 * The server id of user-installed use where no server added the bot (USER_INSTALL,
 * docs/user-install.md): its conversations' guild_id, so that their tokens are counted per day as a
 * server's (guild_usage_days, by the triggers of migration 16), a `/forget-me` there finds them,
 * and no server's settings apply to them (none has this id: ids are digits).
 */
export const userInstallServerId = '@user-install';

/** One conversation: a Discord thread, a direct-message channel, or a named terminal conversation. */
export interface ConversationRow {
  id: number;
  /** `discord:<thread id>` (a DM: `discord:<DM channel id>`, with no server) or `terminal:<name>`. */
  key: string;
  title: string;
  guild_id: string | null;
  channel_id: string | null;
  /** The Discord thread it lives in; null when it lives in the channel itself (no thread could be made). */
  thread_id: string | null;
  started_by_id: string | null;
  started_by_name: string | null;
  created_at: number;
  last_seen_message_id: string | null;
  /** Memory starts after this message id (0: from the beginning); set by a reset. */
  memory_starts_after: number;
  /** The conversation order the memory window starts at (0: where memory starts), moved in steps. */
  window_starts_at: number;
  /** The window budget `window_starts_at` was set for: another budget starts over. */
  window_budget: number;
}

export interface NewConversation {
  key: string;
  title: string;
  guildId: string | null;
  channelId: string | null;
  threadId?: string | null;
  startedById: string | null;
  startedByName: string | null;
}

export function createConversationQueries(db: Database) {
  const insert = db.prepare<
    [string, string, string | null, string | null, string | null, string | null, string | null, number]
  >(
    `INSERT INTO conversations (key, title, guild_id, channel_id, thread_id, started_by_id, started_by_name, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`,
  );
  // The Discord conversations with the newest messages: those worth catching up on after downtime.
  const recentDiscord = db.prepare<[number, number], ConversationRow>(
    `SELECT c.* FROM conversations c WHERE c.key LIKE 'discord:%'
       AND (SELECT max(created_at) FROM messages m WHERE m.conversation_id = c.id) >= ?
     ORDER BY c.id DESC LIMIT ?`,
  );
  const byKey = db.prepare<[string], ConversationRow>('SELECT * FROM conversations WHERE key = ?');
  const byId = db.prepare<[number], ConversationRow>('SELECT * FROM conversations WHERE id = ?');
  const search = db.prepare<[string, string], ConversationRow>(
    'SELECT * FROM conversations WHERE key = ? OR title = ? ORDER BY id DESC',
  );
  const setLastSeen = db.prepare<[string, number]>('UPDATE conversations SET last_seen_message_id = ? WHERE id = ?');
  const setMemoryStart = db.prepare<[number, number]>('UPDATE conversations SET memory_starts_after = ? WHERE id = ?');
  const setWindowStart = db.prepare<[number, number, number]>(
    'UPDATE conversations SET window_starts_at = ?, window_budget = ? WHERE id = ?',
  );
  const setThread = db.prepare<[string | null, number]>('UPDATE conversations SET thread_id = ? WHERE id = ?');
  const setTitle = db.prepare<[string, number]>('UPDATE conversations SET title = ? WHERE id = ?');
  const remove = db.prepare<[number]>('DELETE FROM conversations WHERE id = ?');
  // Conversations answered in their channel (no thread), whose runs posted the message: the
  // channel's few such conversations by their index (migration 21), their runs by theirs.
  const byChannelPost = db.prepare<[string, string], ConversationRow>(
    `SELECT c.* FROM conversations c INDEXED BY conversations_in_channel
     WHERE c.channel_id = ? AND c.thread_id IS NULL
       AND EXISTS (SELECT 1 FROM runs r, json_each(r.posted_message_ids) p
                   WHERE r.conversation_id = c.id AND p.value = ?)
     ORDER BY c.id DESC LIMIT 1`,
  );
  const removeInChannel = db.prepare<[string]>('DELETE FROM conversations WHERE channel_id = ?');
  const guilds = db.prepare<[], { guild_id: string; conversations: number }>(
    'SELECT guild_id, count(*) AS conversations FROM conversations WHERE guild_id IS NOT NULL GROUP BY guild_id',
  );

  return {
    /** The conversation with this key, created on first use. */
    ensure(conversation: NewConversation, now = Date.now()): ConversationRow {
      insert.run(
        conversation.key,
        conversation.title,
        conversation.guildId,
        conversation.channelId,
        conversation.threadId ?? null,
        conversation.startedById,
        conversation.startedByName,
        now,
      );
      return byKey.get(conversation.key)!;
    },
    byKey: (key: string) => byKey.get(key),
    /** Discord conversations with a message since `since`, newest first, at most `limit`. */
    recentDiscord: (since: number, limit: number) => recentDiscord.all(since, limit),
    byId: (id: number) => byId.get(id),
    /** Conversations whose key or title is `name`, newest first. */
    find: (name: string) => search.all(name, name),
    setLastSeenMessage: (id: number, messageId: string) => void setLastSeen.run(messageId, id),
    /**
     * The conversation answered in the channel `channelId` (no thread could be made) whose answer is
     * the bot's message `discordMessageId`: a reply to it carries that conversation on.
     */
    answeredWith: (channelId: string, discordMessageId: string) => byChannelPost.get(channelId, discordMessageId),
    /** Where the conversation lives now: a thread, or null for its channel. Returns the updated row. */
    setThread(id: number, threadId: string | null): ConversationRow {
      setThread.run(threadId, id);
      return byId.get(id)!;
    },
    /** Names the conversation anew (its first message was flagged: its words must not name it). */
    setTitle: (id: number, title: string) => void setTitle.run(title, id),
    /** Starts memory afresh after `messageId`; older messages stay in the database. */
    resetMemory: (id: number, messageId: number) => void setMemoryStart.run(messageId, id),
    /** Where the memory window starts now (a conversation order), for this budget. */
    setWindowStart: (id: number, order: number, budget: number) => void setWindowStart.run(order, budget, id),
    /** Deletes the conversation with its messages, runs and steps. */
    purge: (id: number) => void remove.run(id),
    /** Every server with conversations here, and how many. */
    guilds: () => guilds.all(),
    /** Deletes every conversation held in threads of this channel; returns how many. */
    purgeInChannel: (channelId: string) => removeInChannel.run(channelId).changes,
  };
}
