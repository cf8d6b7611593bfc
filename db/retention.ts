/**
 * Retention: rows older than the operator's limits (MESSAGE_RETENTION_DAYS, STEP_LOG_RETENTION_DAYS,
 * IMAGE_RETENTION_DAYS) deleted in small batches, each its own short write transaction, so that
 * the bot's writes (an answer's steps, a new message) wait one batch at most (about 10 ms). The ids of a batch
 * are read first, outside the write lock; the write re-checks the age, so a row changed meanwhile
 * is left for the next sweep.
 *
 * - Images: their bytes are emptied, the row kept, so that the window names the image as it names
 *   one past MEMORY_IMAGES (src/memory/window-images.ts).
 * - Messages: a model's tool calls and their results go together or not at all (a result without
 *   its call fails the next model request), so a group with a message newer than the limit stays.
 * - Runs and their steps: settled ones only; a run still owed its answer (running, or not delivered) stays.
 * - Facts members asked the bot to remember (member_facts): by MESSAGE_RETENTION_DAYS, counted from
 *   when each was remembered, as the message that asked for it would be.
 * - Discord messages added to the server's knowledge (knowledge_documents of kind 'message': a
 *   member's words): by MESSAGE_RETENTION_DAYS, counted from when each was added; their chunks,
 *   index rows and vectors with them. Files and pages added stay until a moderator removes them.
 * - Members' reminders (schedules of kind 'reminder', their words in `prompt`), once every time
 *   claimed of them is done (posted, or given up) and the last was due before the limit: by
 *   MESSAGE_RETENTION_DAYS, as the message that asked for it would go. A reminder still to come stays.
 * - A conversation's running summary goes with the first message it covers that goes (a trigger of
 *   migration 15): it is rebuilt from what is left after the next answer.
 *
 * Freed pages go back to the file system with an incremental vacuum, on databases made with
 * auto_vacuum = INCREMENTAL (db/open-database.ts sets it on a new file; an older file needs one
 * `VACUUM`, the bot stopped: docs/privacy.md).
 */
import type { Database } from 'better-sqlite3';

/** Days each kind is kept; null: for ever. */
export interface RetentionLimits {
  messageDays: number | null;
  stepLogDays: number | null;
  imageDays: number | null;
}

/** Rows swept, by kind. */
export interface SweepCounts {
  messages: number;
  runs: number;
  images: number;
  /** Remembered facts of members (member memory). */
  facts: number;
  /** Discord messages added to the server's knowledge. */
  knowledge: number;
  /** Members' reminders, posted or given up. */
  reminders: number;
}

const dayMs = 24 * 60 * 60 * 1000;

interface Kind {
  key: keyof SweepCounts;
  days: keyof RetentionLimits;
  /** Up to :batch ids older than :cutoff. */
  select: string;
  /** Acts on the ids in the JSON array :ids still older than :cutoff. */
  act: string;
}

// A run no longer owed: ended and delivered, or resumed by a later run (db/runs.ts, toResume).
const settled = `r.status <> 'running' AND (r.delivered_at IS NOT NULL OR EXISTS (SELECT 1 FROM runs later WHERE later.resumed_from = r.id))`;

// A reminder no longer owed: no time to come, claimed, and every claim posted or given up before :cutoff.
const reminderDone = `s.kind = 'reminder' AND s.next_run_at IS NULL
  AND EXISTS (SELECT 1 FROM schedule_runs r WHERE r.schedule_id = s.id)
  AND NOT EXISTS (SELECT 1 FROM schedule_runs r WHERE r.schedule_id = s.id AND (r.state NOT IN ('posted', 'failed') OR r.due_at >= :cutoff))`;

const kinds: readonly Kind[] = [
  {
    key: 'images',
    days: 'imageDays',
    select: `SELECT i.id FROM message_images i JOIN messages m ON m.id = i.message_id
             WHERE m.created_at < :cutoff AND length(i.bytes) > 0 LIMIT :batch`,
    act: `UPDATE message_images SET bytes = zeroblob(0) WHERE id IN (SELECT value FROM json_each(:ids))`,
  },
  {
    key: 'messages',
    days: 'messageDays',
    select: `SELECT m.id FROM messages m WHERE m.created_at < :cutoff
             AND (m.group_id IS NULL OR NOT EXISTS (SELECT 1 FROM messages g WHERE g.group_id = m.group_id AND g.created_at >= :cutoff))
             ORDER BY m.id LIMIT :batch`,
    act: `DELETE FROM messages WHERE id IN (SELECT value FROM json_each(:ids)) AND created_at < :cutoff`,
  },
  {
    key: 'facts',
    days: 'messageDays',
    select: `SELECT id FROM member_facts WHERE created_at < :cutoff ORDER BY id LIMIT :batch`,
    act: `DELETE FROM member_facts WHERE id IN (SELECT value FROM json_each(:ids)) AND created_at < :cutoff`,
  },
  {
    key: 'knowledge',
    days: 'messageDays',
    select: `SELECT id FROM knowledge_documents WHERE source_kind = 'message' AND created_at < :cutoff ORDER BY id LIMIT :batch`,
    act: `DELETE FROM knowledge_documents WHERE id IN (SELECT value FROM json_each(:ids)) AND created_at < :cutoff`,
  },
  {
    key: 'reminders',
    days: 'messageDays',
    select: `SELECT s.id FROM schedules s WHERE ${reminderDone} ORDER BY s.id LIMIT :batch`,
    act: `DELETE FROM schedules WHERE id IN (SELECT value FROM json_each(:ids)) AND id IN (SELECT s.id FROM schedules s WHERE ${reminderDone})`,
  },
  {
    key: 'runs',
    days: 'stepLogDays',
    select: `SELECT id FROM runs r WHERE r.started_at < :cutoff AND ${settled} LIMIT :batch`,
    act: `DELETE FROM runs WHERE id IN (SELECT value FROM json_each(:ids)) AND id IN (SELECT id FROM runs r WHERE ${settled})`,
  },
];

/** One batch of one kind: the rows it changed (0: nothing left of it) and how long it held the write lock. */
function sweepBatch(db: Database, kind: Kind, cutoff: number, batch: number): { changed: number; lockMs: number } {
  const ids = db.prepare(kind.select).pluck().all({ cutoff, batch });
  if (ids.length === 0) return { changed: 0, lockMs: 0 };
  const parameters = kind.act.includes(':cutoff') ? { ids: JSON.stringify(ids), cutoff } : { ids: JSON.stringify(ids) };
  const started = performance.now();
  const changed = db.transaction(() => db.prepare(kind.act).run(parameters).changes).immediate();
  return { changed, lockMs: performance.now() - started };
}

/** Batch sizes when the caller gives none: adapted so that one batch holds the lock about this long. */
const adaptive = { firstBatch: 50, targetLockMs: 10, least: 5, most: 1000 };

/** The next batch's size: scaled by how far the last one's lock was from the target, within bounds. */
function nextBatchSize(batch: number, lockMs: number, targetLockMs: number): number {
  const scaled = Math.round(batch * (targetLockMs / Math.max(lockMs, 0.01)));
  // At most doubled at a time: one quick batch (a page in cache) must not make the next one huge.
  return Math.min(adaptive.most, Math.max(adaptive.least, Math.min(scaled, batch * 2)));
}

/**
 * Sweeps every kind with a limit, calling `pause` with the batch's lock time between batches (the
 * bot yields to its event loop there). Batches are `batch` rows when given; otherwise sized so
 * that each holds the write lock about `targetLockMs` (a deleted message costs its search-index
 * update, which varies with the words it shares with others: measured 0.5–1 ms a row). Returns the
 * counts and the longest time a batch held the write lock, in ms (the longest an answer's write
 * could wait on the sweep).
 */
export async function sweepExpired(
  db: Database,
  limits: RetentionLimits,
  options: { now?: number; batch?: number; targetLockMs?: number; pause?: (lockMs: number) => Promise<void> } = {},
): Promise<{ counts: SweepCounts; longestLockMs: number }> {
  const {
    now = Date.now(),
    targetLockMs = adaptive.targetLockMs,
    pause = () => new Promise<void>((resolve) => setImmediate(resolve)),
  } = options;
  const counts: SweepCounts = { messages: 0, runs: 0, images: 0, facts: 0, knowledge: 0, reminders: 0 };
  let longestLockMs = 0;
  let size = options.batch ?? adaptive.firstBatch;
  for (const kind of kinds) {
    const days = limits[kind.days];
    if (days === null) continue;
    for (;;) {
      const { changed, lockMs } = sweepBatch(db, kind, now - days * dayMs, size);
      longestLockMs = Math.max(longestLockMs, lockMs);
      counts[kind.key] += changed;
      if (changed === 0) break;
      if (options.batch === undefined) size = nextBatchSize(size, lockMs, targetLockMs);
      await pause(lockMs);
    }
  }
  // A no-op on a file without auto_vacuum = INCREMENTAL.
  if (Object.values(counts).some((count) => count > 0)) db.pragma('incremental_vacuum');
  return { counts, longestLockMs };
}
