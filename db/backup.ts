/**
 * Backups of a bot database while the bot runs, and their restore once it is stopped, through
 * SQLite's online backup API (https://www.sqlite.org/backup.html, better-sqlite3's `db.backup()`):
 * the copy is read in one read transaction, so it is the database as of one moment, and in WAL mode
 * a reader delays no writer (https://www.sqlite.org/wal.html): the bot answers on meanwhile.
 * Every refusal is a `BackupRefusedError`, one line that says whether anything was changed.
 */
import { existsSync, linkSync, rmSync } from 'node:fs';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { forgetFactsAgain, forgetsNotRecorded, type ForgetRecord, placeOfRecord } from './forget-journal.ts';
import { type ForgetCounts, forgetMember } from './forget-member.ts';
import { latestVersion } from './migrations.ts';
import { DatabaseFromFutureError } from './open-database.ts';
import { openStore, type Store } from './store.ts';
import { UserFacingError } from '../src/agent/errors.ts';
import { type Instance, startInstance } from '../src/run-log/instance.ts';

/** A reason not to back up or restore, safe to print as it is. */
export class BackupRefusedError extends UserFacingError {
  constructor(message: string) {
    super('backup-refused', message);
  }
}

/** What a backup holds: its schema version and how many conversations and messages. */
export interface BackupSummary {
  version: number;
  conversations: number;
  messages: number;
}

// better-sqlite3 copies 100 pages a step by default and lets the event loop run between steps; a
// write by the bot between two steps restarts the copy (https://www.sqlite.org/c3ref/backup_finish.html),
// so that a busy bot could keep it from ending. All the rest in one step reads one snapshot.
const allPages = () => 0x7fffffff;

function summaryOf(db: Database): BackupSummary {
  const version = db.pragma('user_version', { simple: true }) as number;
  const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return version === 0
    ? { version, conversations: 0, messages: 0 }
    : { version, conversations: count('conversations'), messages: count('messages') };
}

/** Fails with a `BackupRefusedError` unless SQLite finds the file sound. */
function checkSound(db: Database, path: string, nothingChanged: string): void {
  const verdict = db.pragma('quick_check', { simple: true });
  if (verdict !== 'ok')
    throw new BackupRefusedError(`${path} is damaged (SQLite says: ${String(verdict)}). ${nothingChanged}`);
}

/**
 * Copies the database at `source` into `target`, a file that must not exist: written beside it
 * under another name first and linked into place at the end (a link never replaces a file), so a
 * backup cut off leaves no half file under the name asked for. The copy is one file (no WAL).
 */
export async function backUpDatabase(source: string, target: string): Promise<BackupSummary> {
  const refuseIfTaken = () => {
    if (existsSync(target))
      throw new BackupRefusedError(`${target} exists already: a backup never replaces a file. Choose another name.`);
  };
  refuseIfTaken();
  const partial = `${target}.partial-${process.pid}`;
  try {
    // Not read only: a read-only connection cannot open a WAL database whose -shm file is missing.
    const db = new BetterSqlite3(source, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      await db.backup(partial, { progress: allPages });
    } finally {
      db.close();
    }
    const copy = new BetterSqlite3(partial, { fileMustExist: true });
    let summary: BackupSummary;
    try {
      copy.pragma('journal_mode = DELETE');
      checkSound(copy, source, 'No backup was written.');
      summary = summaryOf(copy);
    } finally {
      copy.close();
    }
    refuseIfTaken();
    linkSync(partial, target);
    return summary;
  } catch (error) {
    if (error instanceof UserFacingError) throw error;
    throw new BackupRefusedError(
      `Cannot back up ${source} to ${target}: ${(error as Error).message}. No backup was written.`,
    );
  } finally {
    rmSync(partial, { force: true });
    rmSync(`${partial}-journal`, { force: true });
  }
}

/** The backup at `path`, checked: sound, a bot database, of a schema this version knows. */
export function checkBackup(path: string): BackupSummary {
  const nothing = 'Nothing was restored.';
  if (!existsSync(path)) throw new BackupRefusedError(`There is no backup at ${path}. ${nothing}`);
  let db: Database;
  try {
    db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupRefusedError(`Cannot open the backup ${path}: ${(error as Error).message}. ${nothing}`);
  }
  try {
    checkSound(db, path, nothing);
    const summary = summaryOf(db);
    if (summary.version > latestVersion)
      throw new BackupRefusedError(
        `The backup ${path} has schema version ${summary.version}, but this version of the bot knows only up to ${latestVersion}: restore it with the version that wrote it. ${nothing}`,
      );
    if (summary.version === 0) throw new BackupRefusedError(`${path} is not a bot database. ${nothing}`);
    return summary;
  } catch (error) {
    if (error instanceof UserFacingError) throw error;
    throw new BackupRefusedError(`${path} is not a SQLite database (${(error as Error).message}). ${nothing}`);
  } finally {
    db.close();
  }
}

/**
 * The database at `target` opened and held by a sole `restore` instance (src/run-log/instance.ts),
 * so that no bot, chat or move starts on it until the restore ends; refused while one runs.
 */
export function holdForRestore(target: string): { store: Store; instance: Instance } {
  let store: Store;
  try {
    store = openStore(target);
  } catch (error) {
    if (error instanceof DatabaseFromFutureError)
      throw new BackupRefusedError(
        `${target} has a newer schema than this version of the bot knows: restore with the version that wrote it. Nothing was restored.`,
      );
    throw new BackupRefusedError(`Cannot open ${target}: ${(error as Error).message}. Nothing was restored.`);
  }
  try {
    return { store, instance: startInstance(store, 'restore') };
  } catch (error) {
    store.close();
    if (error instanceof UserFacingError)
      throw new BackupRefusedError(
        `${target}: ${error.userMessage} Stop the bot before a restore. Nothing was restored.`,
      );
    throw error;
  }
}

/**
 * Copies the backup over the held database, through SQLite (its WAL and locks stay right: no file
 * is replaced under another process). The instances the backup knew were running are processes of
 * the database it was taken from, not of this one: they are marked stopped and their runs
 * interrupted, as the bot's next start would do for processes gone, so that their runs are resumed.
 */
export async function restoreInto(backup: string, held: { store: Store; instance: Instance }): Promise<void> {
  const { store, instance } = held;
  const source = new BetterSqlite3(backup, { readonly: true, fileMustExist: true });
  try {
    await source.backup(store.db.name, { progress: allPages });
  } finally {
    source.close();
  }
  store.db
    .transaction(() => {
      for (const other of store.instances.notStopped()) {
        if (other.id === instance.id) continue;
        store.runs.interruptAllOf(other.id);
        store.instances.stop(other.id);
      }
    })
    .immediate();
  store.db.pragma('wal_checkpoint(TRUNCATE)');
}

/** A forget a restore applied again: the backup was older than it. */
export interface ForgetAppliedAgain {
  record: ForgetRecord;
  counts: ForgetCounts;
}

/**
 * Applies again, to the restored database at `target`, each forget of its journal that it has no
 * record of (db/forget-journal.ts): a member who asked to be forgotten stays forgotten. Opened
 * through the store, so a backup of an older schema is brought up to date first.
 */
export function applyForgetsAgain(target: string): { forgets: ForgetAppliedAgain[]; facts: number } {
  const store = openStore(target);
  try {
    const forgets = forgetsNotRecorded(store.db).map((record) => ({
      record,
      counts: forgetMember(store.db, placeOfRecord(record), record.user_id, record.forgotten_at, false).counts,
    }));
    // Members' /memory forget, journalled beside the forgets (db/forget-journal.ts).
    return { forgets, facts: forgetFactsAgain(store.db) };
  } finally {
    store.close();
  }
}
