/**
 * Instance lock files: the kernel's word on whether a process using the database still lives.
 *
 * Each instance holds, for its whole life, an exclusive lock on a file of its own in a folder beside
 * the database (`bot.sqlite-instances/<instance id>.lock`): an empty SQLite database on which it
 * keeps a `BEGIN EXCLUSIVE` transaction open. SQLite takes that lock with POSIX advisory locks
 * (fcntl), which the kernel drops when the process closes its files, that is when it exits, however
 * it exits: before it becomes a zombie, so whether and when its parent reaps it does not matter
 * (https://man7.org/linux/man-pages/man2/fcntl.2.html, "Advisory record locking": the locks are
 * released when the process terminates; test/db/instance-lock.test.ts checks it with real processes).
 * Another process asks by trying a shared lock on the file, without waiting: refused means the
 * holder lives; granted means it is gone. Probes take shared locks only, so two probes never see
 * each other as a holder.
 *
 * Two things to know:
 * - A killed process with several threads (node has several) can show as a zombie in /proc while
 *   its other threads are still exiting: it holds its files, and so its lock, for those moments.
 * - This trusts the file system's locks exactly as SQLite itself does for the database beside it
 *   (WAL needs every process on one host: https://www.sqlite.org/wal.html; file systems with broken
 *   locks corrupt SQLite databases anyway: https://www.sqlite.org/howtocorrupt.html#_filesystems_with_broken_or_missing_lock_implementations).
 *
 * Nothing but the empty file is ever written: the journal is kept in memory and the transaction is
 * never committed, so a killed holder leaves no journal behind.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';

/** What a lock file says of its instance: `held` (alive), `free` (gone), `none` (no file, or it cannot be read: ask other signals). */
export type InstanceLockState = 'held' | 'free' | 'none';

/** A lock this process holds; `release` lets it go and deletes the file. */
export interface HeldInstanceLock {
  path: string;
  release(): void;
}

const suffix = '.lock';

/** The folder of a database's lock files, beside its file; null for a database in memory (nothing to share it with). */
export function instanceLockFolder(db: Database): string | null {
  const main = (db.pragma('database_list') as { name: string; file: string }[]).find((entry) => entry.name === 'main');
  // An empty file name is an in-memory or temporary database.
  return main?.file ? `${main.file}-instances` : null;
}

export function instanceLockPath(folder: string, instanceId: string): string {
  return join(folder, `${instanceId}${suffix}`);
}

/**
 * Creates the instance's lock file and locks it for the life of this process (or until `release`,
 * which also removes the folder if it is left empty). Throws if the folder or file cannot be made.
 */
export function holdInstanceLock(folder: string, instanceId: string): HeldInstanceLock {
  const path = instanceLockPath(folder, instanceId);
  const connection = openCreatingFolder(folder, path);
  try {
    connection.pragma('journal_mode = MEMORY');
    connection.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    connection.close();
    removeInstanceLock(path);
    throw error;
  }
  return {
    path,
    release() {
      connection.close();
      removeInstanceLock(path);
      try {
        // A clean stop leaves nothing beside the database but its own files.
        rmdirSync(folder);
      } catch {
        // Another instance's lock is in it (ENOTEMPTY), or another stop removed it.
      }
    },
  };
}

function openCreatingFolder(folder: string, path: string): Database {
  for (let attempt = 1; ; attempt++) {
    mkdirSync(folder, { recursive: true });
    try {
      return new BetterSqlite3(path);
    } catch (error) {
      // Another instance's stop removed the folder, empty, between the two calls: once more.
      if (attempt === 2 || existsSync(folder)) throw error;
    }
  }
}

/** Asks, without waiting, whether the lock at `path` is held. */
export function probeInstanceLock(path: string): InstanceLockState {
  let probe: Database;
  try {
    probe = new BetterSqlite3(path, { readonly: true, fileMustExist: true, timeout: 0 });
  } catch {
    // No file (an older version's instance, or one that could not make its lock), or one we may not read.
    return 'none';
  }
  try {
    // Reading takes a shared lock, refused at once while the holder keeps its exclusive one.
    probe.pragma('schema_version');
    return 'free';
  } catch (error) {
    return (error as { code?: string }).code?.startsWith('SQLITE_BUSY') ? 'held' : 'none';
  } finally {
    // SQLite keeps the descriptor open if this process holds a lock on the same file, so closing
    // the probe does not drop that lock (POSIX drops a process's locks on any close of the file).
    probe.close();
  }
}

/** Deletes a lock file if it can: one left behind costs nothing but a few bytes, and the next start tries again. */
export function removeInstanceLock(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // A folder we may not write to: its lock files stay.
  }
}

/** The lock files in `folder`: the instance each belongs to and when it was made. Empty if there is no folder. */
export function instanceLockFiles(folder: string): { instanceId: string; path: string; modifiedAt: number }[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith(suffix))
    .flatMap((name) => {
      const path = join(folder, name);
      try {
        return [{ instanceId: name.slice(0, -suffix.length), path, modifiedAt: statSync(path).mtimeMs }];
      } catch {
        // Deleted meanwhile by another process's clean-up.
        return [];
      }
    });
}
