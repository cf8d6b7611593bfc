import { hostname } from 'node:os';
import type { Database } from 'better-sqlite3';

/** How often a live process marks itself alive; three missed beats and it counts as gone. */
export const heartbeatMs = 10_000;
export const staleAfterMs = 3 * heartbeatMs;

export interface InstanceRow {
  id: string;
  kind: string;
  pid: number;
  hostname: string;
  started_at: number;
  heartbeat_at: number;
  stopped_at: number | null;
}

/** Instances registered by this very process (tests run several in one). */
export const ownInstanceIds = new Set<string>();

/** True if the process behind `instance` is still running, as far as this machine can tell. */
export function isAlive(instance: InstanceRow, now: number): boolean {
  if (instance.stopped_at !== null) return false;
  if (now - instance.heartbeat_at > staleAfterMs) return false;
  if (instance.hostname !== hostname()) return true;
  // Our own pid, but not registered by us: an earlier process that died, whose pid came back
  // (in a container, the bot is process 1 at every start).
  if (instance.pid === process.pid) return ownInstanceIds.has(instance.id);
  try {
    process.kill(instance.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function createInstanceQueries(db: Database) {
  const insert = db.prepare<[string, string, number, string, number, number]>(
    'INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const beat = db.prepare<[number, string]>('UPDATE instances SET heartbeat_at = ? WHERE id = ?');
  const stop = db.prepare<[number, string]>('UPDATE instances SET stopped_at = ? WHERE id = ?');
  const running = db.prepare<[], InstanceRow>('SELECT * FROM instances WHERE stopped_at IS NULL');
  const byId = db.prepare<[string], InstanceRow>('SELECT * FROM instances WHERE id = ?');

  return {
    register: (id: string, kind: string, now = Date.now()) => void insert.run(id, kind, process.pid, hostname(), now, now),
    heartbeat: (id: string, now = Date.now()) => void beat.run(now, id),
    stop: (id: string, now = Date.now()) => void stop.run(now, id),
    byId: (id: string) => byId.get(id),
    /** Instances not marked stopped; some may be dead (see `isAlive`). */
    notStopped: () => running.all(),
  };
}

export type InstanceQueries = ReturnType<typeof createInstanceQueries>;
