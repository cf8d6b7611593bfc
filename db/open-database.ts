import BetterSqlite3, { type Database } from 'better-sqlite3';
import { UserFacingError } from '../src/agent/errors.ts';
import { makeDatabaseFolder } from './database-folder.ts';
import { latestVersion, type Migration, migrations } from './migrations.ts';

/** The database was written by a newer version of the bot; it is left as it is. */
export class DatabaseFromFutureError extends UserFacingError {
  constructor(path: string, found: number, supported: number) {
    super(
      'database-from-future',
      `The database ${path} has schema version ${found}, but this version of the bot knows only up to ${supported}. ` +
        'It was written by a newer version: run that version, or point DATABASE_PATH at another file. The database was not changed.',
    );
  }
}

/** The database predates this version; a viewer does not migrate it under a running older bot. */
export class DatabaseFromPastError extends UserFacingError {
  constructor(path: string, found: number, supported: number) {
    super(
      'database-from-past',
      `The database ${path} has schema version ${found}; this version of the bot uses ${supported}. Start the bot or \`npm run chat\` once to upgrade it, then try again.`,
    );
  }
}

/**
 * Opens a database for reading only (for viewers such as `npm run steps`): the file must exist,
 * nothing is migrated or written, and it must have this version's schema.
 */
export function openDatabaseReadOnly(path: string): Database {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > latestVersion) throw new DatabaseFromFutureError(path, version, latestVersion);
    if (version < latestVersion) throw new DatabaseFromPastError(path, version, latestVersion);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens (creating its folder and file if needed) and migrates the database. WAL with
 * synchronous=NORMAL survives a killed process without a flush per write.
 */
export function openDatabase(path: string, options: { migrations?: readonly Migration[] } = {}): Database {
  makeDatabaseFolder(path);
  const db = new BetterSqlite3(path);
  try {
    db.pragma('busy_timeout = 5000');
    const version = db.pragma('user_version', { simple: true }) as number;
    const list = options.migrations ?? migrations;
    const supported = list.at(-1)?.version ?? latestVersion;
    // Checked before any pragma that writes, so that a database from the future stays untouched.
    if (version > supported) throw new DatabaseFromFutureError(path, version, supported);
    // Only a file with no table yet takes it: retention's sweeps then give freed pages back to the
    // file system (db/retention.ts). An older file keeps its free pages until a VACUUM.
    if (version === 0) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Deleted content is overwritten with zeros, not only unlinked: what a member has forgotten
    // (/forget-me), and the older versions of rows rewritten since (edits, live answers), are gone
    // from the file's bytes (https://www.sqlite.org/pragma.html#pragma_secure_delete).
    db.pragma('secure_delete = ON');
    migrate(db, list, version);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function migrate(db: Database, list: readonly Migration[], from: number): void {
  for (const migration of list) {
    if (migration.version <= from) continue;
    db.transaction(() => {
      // Another process may have migrated while this one waited for the write lock.
      if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) return;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}
