/**
 * The two databases of `npm run move-server`, opened and held: each checked for a live process
 * before anything migrates it, then opened with the project's own code (migrated, or read only for
 * a dry run), then held by a sole instance (src/run-log/instance.ts) so that no bot or chat starts
 * on it until the move ends. Every refusal is a `MoveRefusedError`, one line naming the file.
 */
import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { createInstanceQueries, type InstanceRow } from './instances.ts';
import { latestVersion } from './migrations.ts';
import { DatabaseFromFutureError } from './open-database.ts';
import { openStore, type Store } from './store.ts';
import { UserFacingError } from '../src/agent/errors.ts';
import { type Instance, liveInstances, soleKinds, startInstance } from '../src/run-log/instance.ts';

/** A reason not to move, safe to print as it is (one line; it says whether anything was changed). */
export class MoveRefusedError extends UserFacingError {
  constructor(message: string) {
    super('move-refused', message);
  }
}

const describeInstance = (instance: InstanceRow) =>
  `a ${instance.kind} (process ${instance.pid} on ${instance.hostname})`;

/**
 * Refuses a database a process is using now, or one from a newer version, before it is opened
 * with migrations: a bot of an older version must not find its database migrated under it.
 */
export function refuseIfInUse(path: string): void {
  if (!existsSync(path)) return;
  let db;
  try {
    db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new MoveRefusedError(`Cannot open the database ${path}: ${(error as Error).message}. Nothing was changed.`);
  }
  try {
    db.pragma('busy_timeout = 5000');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > latestVersion)
      throw new MoveRefusedError(new DatabaseFromFutureError(path, version, latestVersion).userMessage);
    if (version === 0) return; // new or empty: no instances table yet
    const [live] = liveInstances({ db, instances: createInstanceQueries(db) });
    if (live)
      throw new MoveRefusedError(
        soleKinds.has(live.kind)
          ? `${describeInstance(live)} is working on ${path}: wait for it to end. Nothing was changed.`
          : `${describeInstance(live)} is using ${path}: stop it before moving a server's data. Nothing was changed.`,
      );
  } catch (error) {
    if (error instanceof MoveRefusedError) throw error;
    throw new MoveRefusedError(`Cannot read the database ${path}: ${(error as Error).message}. Nothing was changed.`);
  } finally {
    db.close();
  }
}

/**
 * Opens the database: migrated, or (`readOnly`, for a dry run) as it is, a file that does not
 * exist yet being an empty database in memory.
 */
export function openForMove(path: string, options: { readOnly: boolean }): Store {
  try {
    if (options.readOnly) return existsSync(path) ? openStore(path, { readOnly: true }) : openStore(':memory:');
    return openStore(path);
  } catch (error) {
    const why =
      error instanceof UserFacingError
        ? error.userMessage
        : `Cannot open the database ${path}: ${(error as Error).message}.`;
    throw new MoveRefusedError(`${why} Nothing was moved.`);
  }
}

/** Holds each database with a sole instance; all or none (one refused lets the others go). */
export function holdAlone(databases: readonly { path: string; store: Store }[]): Instance[] {
  const held: Instance[] = [];
  for (const { path, store } of databases) {
    try {
      held.push(startInstance(store, 'move-server'));
    } catch (error) {
      for (const instance of held) instance.stop();
      if (error instanceof UserFacingError)
        throw new MoveRefusedError(`${path}: ${error.userMessage} Nothing was moved.`);
      throw error;
    }
  }
  return held;
}
