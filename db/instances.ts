/**
 * The instances table: one row per process that used the database (the bot, `npm run chat`, ...),
 * and the rule that says whether the process behind a row still lives.
 *
 * Two signals. The lock (db/instance-lock.ts): every instance of this version holds a lock the
 * kernel drops when the process dies, whatever its parent does and on whatever host it ran. The
 * heartbeat: a live process writes `heartbeat_at` every `heartbeatMs`. The lock decides when there
 * is one; the heartbeat (with the pid on this host) decides only for rows with no lock file: rows of
 * older versions, databases in memory, and instances that could not make their lock (a read-only
 * folder beside the database, say).
 *
 * | stopped_at | registered here | lock file | heartbeat | host  | process (/proc, kill 0) | alive    |
 * |------------|-----------------|-----------|-----------|-------|-------------------------|----------|
 * | set        |                 |           |           |       |                         | no       |
 * | not set    | yes             |           |           |       |                         | yes      |
 * | not set    | no              | held      |           |       |                         | yes (1)  |
 * | not set    | no              | free      |           |       |                         | no (2)   |
 * | not set    | no              | none      | stale     |       |                         | no       |
 * | not set    | no              | none      | fresh     | other |                         | yes (3)  |
 * | not set    | no              | none      | fresh     | this  | this process's own pid  | no (4)   |
 * | not set    | no              | none      | fresh     | this  | zombie (Z), or none     | no       |
 * | not set    | no              | none      | fresh     | this  | running (or EPERM)      | yes      |
 *
 * A blank cell is "any". "none": no lock file, or one that cannot be read. (1) The kernel keeps the
 * lock only for a live process: with a stale heartbeat it is stuck, not dead, and a second bot would
 * fight it. (2) Its process died: a zombie, or a container moved to another machine with the volume.
 * (3) Nothing on this machine can tell, until the heartbeat goes stale (`staleAfterMs`). (4) Not
 * registered by this process: an earlier one that crashed, whose pid came back (process 1 in a
 * container, at every start).
 */
import { hostname } from 'node:os';
import type { Database } from 'better-sqlite3';
import { processState } from './process-state.ts';
import type { InstanceLockState } from './instance-lock.ts';

/** How often a live process marks itself alive; three missed beats and it counts as gone (for rows with no lock file). */
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

/** True if the process behind `instance` is still running, from its lock file's state and, without one, its heartbeat and pid (the table above). */
export function isAlive(instance: InstanceRow, now: number, lock: InstanceLockState): boolean {
  if (instance.stopped_at !== null) return false;
  if (ownInstanceIds.has(instance.id)) return true;
  if (lock !== 'none') return lock === 'held';
  if (now - instance.heartbeat_at > staleAfterMs) return false;
  if (instance.hostname !== hostname()) return true;
  if (instance.pid === process.pid) return false;
  // kill(pid, 0) succeeds for a zombie: dead, but not yet reaped by its parent.
  if (processState(instance.pid) === 'Z') return false;
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
    register: (id: string, kind: string, now = Date.now()) =>
      void insert.run(id, kind, process.pid, hostname(), now, now),
    heartbeat: (id: string, now = Date.now()) => void beat.run(now, id),
    stop: (id: string, now = Date.now()) => void stop.run(now, id),
    byId: (id: string) => byId.get(id),
    /** Instances not marked stopped; some may be dead (see `isAlive`). */
    notStopped: () => running.all(),
  };
}
