import type { Database } from 'better-sqlite3';

/** Where a setting is made: a whole server, a channel (and its threads), or one thread. */
export type SettingScope = 'server' | 'channel' | 'thread';

/** One change of a setting, as stored: who made it, when, and the value (null: cleared). */
export interface SettingChangeRow {
  id: number;
  guild_id: string;
  scope: SettingScope;
  scope_id: string;
  key: string;
  value: string | null;
  changed_by_id: string;
  changed_by_name: string;
  changed_at: number;
}

/** A change to make. */
export interface NewSettingChange {
  guildId: string;
  scope: SettingScope;
  scopeId: string;
  key: string;
  value: string | null;
  changedById: string;
  changedByName: string;
}

/**
 * The settings of servers, channels and threads, append-only: the newest change of a key at a
 * place is its value there (a null value is cleared: the place inherits it).
 */
export function createPlaceSettingQueries(db: Database) {
  const insert = db.prepare(
    `INSERT INTO setting_changes (guild_id, scope, scope_id, key, value, changed_by_id, changed_by_name, changed_at)
     VALUES (@guildId, @scope, @scopeId, @key, @value, @changedById, @changedByName, @now)`,
  );
  // The newest change of each key at the place, cleared ones included (a reset must hide older ones).
  // By scope and id: a server made before 2017 has a first channel with the server's own id.
  const current = db.prepare<[SettingScope, string], SettingChangeRow>(
    `SELECT s.* FROM setting_changes s
     WHERE s.scope = ? AND s.scope_id = ?
       AND s.id = (SELECT max(id) FROM setting_changes t WHERE t.scope = s.scope AND t.scope_id = s.scope_id AND t.key = s.key)
     ORDER BY s.key`,
  );
  const recentOfGuild = db.prepare<[string, number], SettingChangeRow>(
    'SELECT * FROM setting_changes WHERE guild_id = ? ORDER BY id DESC LIMIT ?',
  );
  const recentAll = db.prepare<[number], SettingChangeRow>('SELECT * FROM setting_changes ORDER BY id DESC LIMIT ?');
  const forget = db.prepare<[SettingScope, string]>('DELETE FROM setting_changes WHERE scope = ? AND scope_id = ?');
  return {
    /** Records changes together (a reset clears several keys at once). */
    change: db.transaction((changes: readonly NewSettingChange[], now: number = Date.now()) => {
      for (const change of changes) insert.run({ ...change, now });
    }),
    /** The place's settings now (a row whose value is null: cleared). */
    at: (scope: SettingScope, scopeId: string) => current.all(scope, scopeId),
    /** Forgets a place's settings and their history: the channel or thread is deleted. */
    forget: (scope: SettingScope, scopeId: string) => void forget.run(scope, scopeId),
    /** The newest changes, of one server or of all. */
    recent: (guildId: string | null, limit = 50) =>
      guildId === null ? recentAll.all(limit) : recentOfGuild.all(guildId, limit),
  };
}

export type PlaceSettingQueries = ReturnType<typeof createPlaceSettingQueries>;
