import { randomUUID } from 'node:crypto';
import {
  type HeldInstanceLock,
  holdInstanceLock,
  instanceLockFiles,
  instanceLockFolder,
  instanceLockPath,
  probeInstanceLock,
  removeInstanceLock,
} from '../../db/instance-lock.ts';
import { heartbeatMs, type InstanceRow, isAlive, ownInstanceIds, staleAfterMs } from '../../db/instances.ts';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';
import { UserFacingError } from '../agent/errors.ts';

/** A process using the database: it owns the runs it starts, and holds its lock and beats while it lives. */
export interface Instance {
  id: string;
  /** Marks the instance stopped and its unfinished runs interrupted; stops the heartbeat; lets its lock go and deletes it. */
  stop(): void;
}

export class InstanceAlreadyRunningError extends UserFacingError {
  constructor(kind: string, pid: number, host: string) {
    super(
      'instance-already-running',
      `Another ${kind} (process ${pid} on ${host}) is already using this database. Stop it first, or point DATABASE_PATH at another file.`,
    );
  }
}

/**
 * Kinds of instance that need the database to themselves (`npm run move-server`, which moves a
 * server's rows out of or into it; `npm run restore`, which replaces all of them): such an instance starts only when no other lives, and while it
 * lives every other start is refused, whatever its kind.
 */
export const soleKinds: ReadonlySet<string> = new Set(['move-server', 'restore']);

export class DatabaseInUseError extends UserFacingError {
  /** `sole`: the instance that holds the database is one of `soleKinds` (else the one starting is). */
  constructor(kind: string, pid: number, host: string, sole: boolean) {
    super(
      'database-in-use',
      sole
        ? `A ${kind} (process ${pid} on ${host}) needs this database to itself for now: start again once it has ended.`
        : `A ${kind} (process ${pid} on ${host}) is using this database: stop it first.`,
    );
  }
}

/** The instances using the database now, other than this process's own (the table in db/instances.ts). */
export function liveInstances(store: Pick<Store, 'db' | 'instances'>, now = Date.now()): InstanceRow[] {
  const lockFolder = instanceLockFolder(store.db);
  return store.instances
    .notStopped()
    .filter((other) => !ownInstanceIds.has(other.id) && isAlive(other, now, lockStateOf(lockFolder, other.id)));
}

function lockStateOf(lockFolder: string | null, instanceId: string) {
  return lockFolder === null ? 'none' : probeInstanceLock(instanceLockPath(lockFolder, instanceId));
}

/**
 * Registers this process. First it takes its lock (db/instance-lock.ts), so that its row never
 * exists without it. Then, in one write transaction, the runs of instances that are gone (the table
 * in db/instances.ts) are marked interrupted and their rows stopped; live ones are left alone. With
 * `exclusive`, a live instance of the same kind refuses the start; any live instance refuses the
 * start of one of `soleKinds`, and a live one of those refuses any start. Last, lock files of
 * instances that are gone are deleted.
 */
export function startInstance(
  store: Pick<Store, 'db' | 'instances' | 'runs'>,
  kind: string,
  options: { exclusive?: boolean; logger?: Logger } = {},
): Instance {
  const { instances, runs } = store;
  const id = randomUUID();
  const lockFolder = instanceLockFolder(store.db);
  const lock = lockFolder === null ? null : tryToHoldLock(lockFolder, id, options.logger);
  try {
    // One write transaction: two processes starting at once cannot both pass the exclusive check
    // (the second sees the first's row, and its lock, already held).
    store.db
      .transaction(() => {
        const now = Date.now();
        for (const other of instances.notStopped()) {
          if (isAlive(other, now, lockStateOf(lockFolder, other.id))) {
            if (soleKinds.has(other.kind)) throw new DatabaseInUseError(other.kind, other.pid, other.hostname, true);
            if (soleKinds.has(kind)) throw new DatabaseInUseError(other.kind, other.pid, other.hostname, false);
            if (options.exclusive && other.kind === kind)
              throw new InstanceAlreadyRunningError(kind, other.pid, other.hostname);
            continue;
          }
          runs.interruptAllOf(other.id, now);
          instances.stop(other.id, now);
        }
        instances.register(id, kind, now);
      })
      .immediate();
  } catch (error) {
    lock?.release();
    throw error;
  }
  ownInstanceIds.add(id);
  if (lockFolder !== null) removeLocksOfGoneInstances(store, lockFolder);
  const timer = setInterval(() => {
    try {
      instances.heartbeat(id);
    } catch (error) {
      // A busy or closed database must not crash the process; the next beat tries again.
      options.logger?.warn({ err: error }, 'heartbeat failed');
    }
  }, heartbeatMs);
  timer.unref();
  return {
    id,
    stop() {
      clearInterval(timer);
      runs.interruptAllOf(id);
      instances.stop(id);
      ownInstanceIds.delete(id);
      lock?.release();
    },
  };
}

/** The lock, or null if its folder or file cannot be made: then others judge this instance by its heartbeat and pid, as before locks. */
function tryToHoldLock(folder: string, id: string, logger: Logger | undefined): HeldInstanceLock | null {
  try {
    return holdInstanceLock(folder, id);
  } catch (error) {
    logger?.warn(
      { err: error, folder },
      'cannot make the instance lock file; other processes will judge this one by its heartbeat',
    );
    return null;
  }
}

/**
 * Deletes the lock files of stopped instances (a process that died after its row was stopped and
 * before it deleted its file), and of instances with no row made long ago (one killed while it
 * started). Each is probed first: a held lock is never deleted.
 */
function removeLocksOfGoneInstances(store: Pick<Store, 'instances'>, folder: string): void {
  const now = Date.now();
  for (const file of instanceLockFiles(folder)) {
    const row = store.instances.byId(file.instanceId);
    const gone = row ? row.stopped_at !== null : now - file.modifiedAt > staleAfterMs;
    if (gone && probeInstanceLock(file.path) === 'free') removeInstanceLock(file.path);
  }
}
