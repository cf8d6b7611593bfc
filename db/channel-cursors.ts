import type { Database } from 'better-sqlite3';

export interface ChannelCursorRow {
  channel_id: string;
  guild_id: string;
  /** The newest message of the channel the bot has handled, with every older one it saw. */
  last_seen_message_id: string;
  seen_at: number;
}

/**
 * Where the bot stands in each text channel it answers mentions in: after a restart, the messages
 * past the cursor are read again for mentions missed while it was down. Snowflakes are compared as
 * numbers (longer is newer), so the cursor only ever moves forward.
 */
export function createChannelCursorQueries(db: Database) {
  const advance = db.prepare<{ channelId: string; guildId: string; messageId: string; now: number }>(
    `INSERT INTO channel_cursors (channel_id, guild_id, last_seen_message_id, seen_at) VALUES (@channelId, @guildId, @messageId, @now)
     ON CONFLICT (channel_id) DO UPDATE SET last_seen_message_id = excluded.last_seen_message_id, seen_at = excluded.seen_at
     WHERE length(excluded.last_seen_message_id) > length(last_seen_message_id)
        OR (length(excluded.last_seen_message_id) = length(last_seen_message_id) AND excluded.last_seen_message_id > last_seen_message_id)`,
  );
  const recent = db.prepare<[number, number], ChannelCursorRow>(
    'SELECT * FROM channel_cursors WHERE seen_at >= ? ORDER BY seen_at DESC LIMIT ?',
  );
  const start = db.prepare<{ channelId: string; guildId: string; messageId: string; now: number }>(
    `INSERT INTO channel_cursors (channel_id, guild_id, last_seen_message_id, seen_at) VALUES (@channelId, @guildId, @messageId, @now)
     ON CONFLICT (channel_id) DO NOTHING`,
  );
  const forget = db.prepare<[string]>('DELETE FROM channel_cursors WHERE channel_id = ?');
  return {
    /** Moves the channel's cursor to `messageId`, unless it is past it already. */
    advance: (channelId: string, guildId: string, messageId: string, now = Date.now()) =>
      void advance.run({ channelId, guildId, messageId, now }),
    /** Gives each channel that has none a cursor at `messageId` (where the bot starts watching), all in one transaction. */
    start: db.transaction(
      (channels: readonly { channelId: string; guildId: string; messageId: string }[], now = Date.now()) => {
        for (const channel of channels) start.run({ ...channel, now });
      },
    ),
    /** Channels seen since `since`, most recent first, at most `limit`. */
    recent: (since: number, limit: number) => recent.all(since, limit),
    forget: (channelId: string) => void forget.run(channelId),
  };
}
