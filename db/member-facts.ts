import type { Database } from 'better-sqlite3';
import { journalFactForget } from './forget-journal.ts';

/**
 * A fact a member asked the bot to keep ("I use metric units"), in one place: a server's id, or
 * '@me' (directMessagesServerId) for their direct messages (migration 18). Only the member's own
 * runs read them (src/conversation/member-facts.ts), and only the member's `/memory` shows them.
 */
export interface MemberFactRow {
  id: number;
  guild_id: string;
  user_id: string;
  fact: string;
  created_at: number;
}

/** The facts of a member, each kept in a place: written by the `remember` tool, read by their runs and `/memory`. */
export function createMemberFactQueries(db: Database) {
  const insert = db.prepare<[string, string, string, number]>(
    'INSERT INTO member_facts (guild_id, user_id, fact, created_at) VALUES (?, ?, ?, ?)',
  );
  const of = db.prepare<[string, string], MemberFactRow>(
    'SELECT * FROM member_facts WHERE guild_id = ? AND user_id = ? ORDER BY id',
  );
  const count = db
    .prepare<[string, string], number>('SELECT count(*) FROM member_facts WHERE guild_id = ? AND user_id = ?')
    .pluck();
  const removeOne = db.prepare<[number, string, string]>(
    'DELETE FROM member_facts WHERE id = ? AND guild_id = ? AND user_id = ?',
  );
  const ofId = db.prepare<[number, string, string], MemberFactRow>(
    'SELECT * FROM member_facts WHERE id = ? AND guild_id = ? AND user_id = ?',
  );
  const removeAll = db.prepare<[string, string]>('DELETE FROM member_facts WHERE guild_id = ? AND user_id = ?');
  // One transaction: two runs of the member in two threads cannot both pass the cap.
  const keep = db.transaction((place: string, userId: string, fact: string, most: number, now: number): KeepOutcome => {
    const kept = of.all(place, userId);
    if (kept.some((row) => row.fact === fact)) return { kept: 'already', count: kept.length };
    if (kept.length >= most) return { kept: 'full', count: kept.length };
    insert.run(place, userId, fact, now);
    return { kept: 'new', count: kept.length + 1 };
  });
  return {
    /** Keeps a fact unless the member has it already or has `most` there; says which, and how many they have now. */
    keep: (place: string, userId: string, fact: string, most: number, now = Date.now()) =>
      keep.immediate(place, userId, fact, most, now),
    /** The member's facts in the place, oldest first. */
    of: (place: string, userId: string) => of.all(place, userId),
    count: (place: string, userId: string) => count.get(place, userId) ?? 0,
    /**
     * Removes one of the member's own facts there (`/memory forget`); false when it is not theirs (or
     * gone). Journalled first, as a forget is (db/forget-journal.ts), so that a restore does not bring it back.
     */
    remove: (id: number, place: string, userId: string, now = Date.now()) => {
      const row = ofId.get(id, place, userId);
      if (!row) return false;
      journalFactForget(db, {
        guild_id: place,
        user_id: userId,
        fact_id: row.id,
        fact_created_at: row.created_at,
        forgotten_at: now,
      });
      return removeOne.run(id, place, userId).changes > 0;
    },
    /** Removes every fact of the member there; returns how many went. Journalled first, as `remove` is. */
    removeAll: (place: string, userId: string, now = Date.now()) => {
      if (count.get(place, userId) === 0) return 0;
      journalFactForget(db, {
        guild_id: place,
        user_id: userId,
        fact_id: null,
        fact_created_at: null,
        forgotten_at: now,
      });
      return removeAll.run(place, userId).changes;
    },
  };
}

/** What came of keeping a fact: kept, already there, or not kept (the member has the most there). */
export interface KeepOutcome {
  kept: 'new' | 'already' | 'full';
  /** The member's facts in the place afterwards. */
  count: number;
}

export type MemberFactQueries = ReturnType<typeof createMemberFactQueries>;
