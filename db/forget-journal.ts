/**
 * The forgets journal: every forget asked for (`/forget-me`, `npm run forget`), one line in a file
 * beside the database (`bot.sqlite.forgets`), so that a restore cannot undo it. A backup older
 * than a forget still holds the member's words and has no row of it in `forgets`: the restore
 * (src/restore.ts) reads this file, which it does not replace, and applies again each forget the
 * restored database has no record of. A line says who, where and when: never what was said.
 *
 * The line is written, and flushed to disk, before the forget's transaction: a crash between the
 * two leaves a forget asked for and not done, which the next restore does (the member asked); the
 * other order could lose the record of one that was done.
 *
 * A member's `/memory forget` (one remembered fact, or all of theirs in a place) has a journal of
 * its own beside it (`bot.sqlite.forgotten-facts`): a line names the fact by its id and when it was
 * remembered, never its words, and a restore deletes it again (or every fact of the member there
 * remembered before the forget). A file of its own, so that a bot of an older version, which reads
 * every line of the forgets journal as a member forgotten whole, never mistakes one for that.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { directMessagesServerId } from './conversations.ts';

/** One forget: `guild_id` as the `forgets` table has it ("@me" for DMs, "terminal" for `npm run chat`). */
export interface ForgetRecord {
  guild_id: string;
  user_id: string;
  forgotten_at: number;
}

/** The journal of the database `db` is open on; none for a database in memory. */
function forgetJournalPath(db: Database): string | null {
  return db.memory ? null : `${db.name}.forgets`;
}

/** The `forgets` table's place of a forget in `guild` (null: the DMs, or the terminal's for a terminal user). */
export function recordedPlace(guild: string | null, user: string): string {
  return guild ?? (user.startsWith('terminal:') ? 'terminal' : directMessagesServerId);
}

/** The place `forgetMember` takes for a recorded one. */
export function placeOfRecord(record: ForgetRecord): string | null {
  return record.guild_id === directMessagesServerId || record.guild_id === 'terminal' ? null : record.guild_id;
}

/** Appends the forget to the journal and flushes it to disk (readable by the operator only). */
export function journalForget(db: Database, record: ForgetRecord): void {
  appendLine(forgetJournalPath(db), record);
}

/**
 * A `/memory forget`: one fact (its id and when it was remembered: an id SQLite may give again to a
 * later fact), or, `fact_id` null, every fact of the member in the place remembered until then.
 */
export interface FactForgetRecord {
  /** The place as member_facts has it (a server's id, or '@me'). */
  guild_id: string;
  user_id: string;
  fact_id: number | null;
  fact_created_at: number | null;
  forgotten_at: number;
}

/** Appends a `/memory forget` to its journal and flushes it to disk, before the delete. */
export function journalFactForget(db: Database, record: FactForgetRecord): void {
  appendLine(db.memory ? null : `${db.name}.forgotten-facts`, record);
}

/**
 * Deletes again, in the database `db` is open on (a restore's), every fact its `/memory forget`
 * journal says was forgotten; returns how many there were still. Applying a line twice changes nothing.
 */
export function forgetFactsAgain(db: Database): number {
  const path = db.memory ? null : `${db.name}.forgotten-facts`;
  if (!path || !existsSync(path)) return 0;
  const one = db.prepare<FactForgetRecord>(
    'DELETE FROM member_facts WHERE id = @fact_id AND created_at = @fact_created_at AND guild_id = @guild_id AND user_id = @user_id',
  );
  const all = db.prepare<FactForgetRecord>(
    'DELETE FROM member_facts WHERE guild_id = @guild_id AND user_id = @user_id AND created_at <= @forgotten_at',
  );
  const records = readLines<FactForgetRecord>(path);
  return db.transaction(() =>
    records.reduce((sum, record) => sum + (record.fact_id === null ? all : one).run(record).changes, 0),
  )();
}

function appendLine(path: string | null, record: object): void {
  if (!path) return;
  const file = openSync(path, 'a', 0o600);
  try {
    writeSync(file, `${JSON.stringify(record)}\n`);
    fsyncSync(file);
  } finally {
    closeSync(file);
  }
}

/** The forgets of the journal the database has no record of (a restore from a backup older than them). */
export function forgetsNotRecorded(db: Database): ForgetRecord[] {
  const path = forgetJournalPath(db);
  if (!path || !existsSync(path)) return [];
  const recorded = db.prepare('SELECT 1 FROM forgets WHERE guild_id = ? AND user_id = ? AND forgotten_at = ?').pluck();
  return readLines<ForgetRecord>(path).filter(
    (record) => recorded.get(record.guild_id, record.user_id, record.forgotten_at) === undefined,
  );
}

/** The records of a journal, one JSON object a line. */
function readLines<Record>(path: string): Record[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record];
      } catch {
        return []; // The empty last line, or one cut off by a crash as it was written: not yet a forget.
      }
    });
}
