import type { Database } from 'better-sqlite3';

/** A card owed to a server's log channel: the entry as JSON (src/moderator-log/log-entry.ts). */
export interface LogOutboxRow {
  id: number;
  guild_id: string;
  entry: string;
  created_at: number;
}

/**
 * The moderators' log channel's outbox: an entry is added in the transaction that records its fact,
 * and removed only once its card is posted (or summarised, or logging stopped), so that a crash
 * loses nothing in between.
 */
export function createLogOutboxQueries(db: Database) {
  const insert = db.prepare<[string, string, number]>(
    'INSERT INTO log_outbox (guild_id, entry, created_at) VALUES (?, ?, ?)',
  );
  const oldest = db.prepare<[string, number], LogOutboxRow>(
    'SELECT * FROM log_outbox WHERE guild_id = ? ORDER BY id LIMIT ?',
  );
  const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM log_outbox WHERE guild_id = ?');
  const guilds = db.prepare<[], { guild_id: string }>('SELECT DISTINCT guild_id FROM log_outbox');
  const remove = db.prepare<[number]>('DELETE FROM log_outbox WHERE id = ?');
  const removeGuild = db.prepare<[string]>('DELETE FROM log_outbox WHERE guild_id = ?');
  // Run cards first, oldest first (their runs stay in /steps); then, when those are not enough, the
  // oldest of any kind: a member pressing /tool again and again must not grow it past the bound.
  const dropOldest = db.prepare<[string, number]>(
    `DELETE FROM log_outbox WHERE id IN (SELECT id FROM log_outbox WHERE guild_id = ? ORDER BY json_extract(entry, '$.kind') <> 'run', id LIMIT ?)`,
  );
  return {
    add: (guildId: string, entry: string, now = Date.now()) => void insert.run(guildId, entry, now),
    /** The server's oldest entries first. */
    oldest: (guildId: string, limit: number) => oldest.all(guildId, limit),
    count: (guildId: string) => count.get(guildId)!.n,
    /** The servers that are owed cards. */
    guilds: () => guilds.all().map((row) => row.guild_id),
    /** Entries posted (or summarised). */
    remove: db.transaction((ids: readonly number[]) => {
      for (const id of ids) remove.run(id);
    }),
    /** The server's `count` oldest cards, run cards first (the rarer kinds stay while there are runs to drop). */
    dropOldest: (guildId: string, count: number) => void dropOldest.run(guildId, count),
    /** Every entry of a server: its logging was stopped. */
    removeGuild: (guildId: string) => void removeGuild.run(guildId),
  };
}
