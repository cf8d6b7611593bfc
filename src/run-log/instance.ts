import { randomUUID } from 'node:crypto';
import { heartbeatMs, isAlive, ownInstanceIds } from '../../db/instances.ts';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';
import { UserFacingError } from '../errors.ts';

/** A process using the database: it owns the runs it starts, and beats while it lives. */
export interface Instance {
  id: string;
  /** Marks the instance stopped and its unfinished runs interrupted; stops the heartbeat. */
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
 * Registers this process. First, the runs of instances that are gone (stopped, silent for too long,
 * or a dead process on this machine) are marked interrupted; runs of live instances are left
 * alone. With `exclusive`, a live instance of the same kind refuses the start.
 */
export function startInstance(store: Pick<Store, 'db' | 'instances' | 'runs'>, kind: string, options: { exclusive?: boolean; logger?: Logger } = {}): Instance {
  const { instances, runs } = store;
  const id = randomUUID();
  // One write transaction: two processes starting at once cannot both pass the exclusive check.
  store.db
    .transaction(() => {
      const now = Date.now();
      for (const other of instances.notStopped()) {
        if (isAlive(other, now)) {
          if (options.exclusive && other.kind === kind) throw new InstanceAlreadyRunningError(kind, other.pid, other.hostname);
          continue;
        }
        runs.interruptAllOf(other.id, now);
        instances.stop(other.id, now);
      }
      instances.register(id, kind, now);
    })
    .immediate();
  ownInstanceIds.add(id);
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
    },
  };
}
