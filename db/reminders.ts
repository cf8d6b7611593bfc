import type { Database } from 'better-sqlite3';
import { staleAfterMs } from './instances.ts';

/**
 * A reminder, from asked to delivered (or given up). While an instance posts it, `claimed_by`
 * names that instance; a claim whose instance is gone is taken over, so a crash between the claim
 * and the post delays the reminder instead of losing it.
 */
export interface ReminderRow {
  id: number;
  guild_id: string | null;
  channel_id: string;
  user_id: string;
  text: string;
  due_at: number;
  created_at: number;
  /** When Discord confirmed the post (or the channel was found to show it already). */
  delivered_at: number | null;
  /** The instance posting it now; null between attempts. */
  claimed_by: string | null;
  /** Claims so far, each one an attempt to post. */
  attempts: number;
  first_attempt_at: number | null;
  /** Not before then (after a failed attempt); null: as soon as it is due. */
  retry_at: number | null;
  /** The message as first written: every attempt posts exactly this, so a repeat can be recognised. */
  content: string | null;
  message_id: string | null;
  given_up_at: number | null;
  last_error: string | null;
}

/**
 * Due, waiting, and claimed by nobody or by an instance that is gone: one marked stopped (its own
 * stop, or the next start found it dead, see `startInstance`), one silent past `staleAfterMs`, or
 * one not in the table at all.
 */
const claimable = `
  delivered_at IS NULL AND given_up_at IS NULL AND due_at <= @now AND (retry_at IS NULL OR retry_at <= @now)
  AND (claimed_by IS NULL OR NOT EXISTS (
    SELECT 1 FROM instances i WHERE i.id = reminders.claimed_by AND i.stopped_at IS NULL AND i.heartbeat_at >= @now - ${staleAfterMs}
  ))`;

export function createReminderQueries(db: Database) {
  const insert = db.prepare<[string | null, string, string, string, number, number]>(
    'INSERT INTO reminders (guild_id, channel_id, user_id, text, due_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const due = db.prepare<{ now: number; limit: number }, ReminderRow>(
    `SELECT * FROM reminders WHERE ${claimable} ORDER BY due_at LIMIT @limit`,
  );
  // One statement that checks and claims: of two processes, only one gets the row back.
  const claim = db.prepare<{ id: number; instance: string; content: string; now: number }, ReminderRow>(`
    UPDATE reminders SET claimed_by = @instance, attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, @now), content = coalesce(content, @content)
    WHERE id = @id AND ${claimable} RETURNING *`);
  const delivered = db.prepare<{ id: number; messageId: string | null; now: number }>(
    'UPDATE reminders SET delivered_at = @now, message_id = @messageId, claimed_by = NULL, retry_at = NULL, last_error = NULL WHERE id = @id AND delivered_at IS NULL',
  );
  // Only the holder of the claim lets go of it: a claim taken over is the new holder's.
  const release = db.prepare<{ id: number; instance: string; retryAt: number; error: string }>(
    'UPDATE reminders SET claimed_by = NULL, retry_at = @retryAt, last_error = @error WHERE id = @id AND claimed_by = @instance',
  );
  const giveUp = db.prepare<{ id: number; instance: string; now: number; error: string }>(
    'UPDATE reminders SET claimed_by = NULL, given_up_at = @now, last_error = @error WHERE id = @id AND claimed_by = @instance AND delivered_at IS NULL',
  );
  const pending = db
    .prepare<[string], number>(
      'SELECT count(*) FROM reminders WHERE user_id = ? AND delivered_at IS NULL AND given_up_at IS NULL',
    )
    .pluck();
  const byId = db.prepare<[number], ReminderRow>('SELECT * FROM reminders WHERE id = ?');
  return {
    add: (
      reminder: { guildId: string | null; channelId: string; userId: string; text: string; dueAt: number },
      now = Date.now(),
    ) =>
      Number(
        insert.run(reminder.guildId, reminder.channelId, reminder.userId, reminder.text, reminder.dueAt, now)
          .lastInsertRowid,
      ),
    /** Reminders an instance may claim now, oldest due first. */
    due: (now: number, limit = 50) => due.all({ now, limit }),
    /**
     * Claims the reminder for `instance` (one more attempt), keeping the content of the first
     * attempt if there was one; undefined if it is not claimable (delivered, or another live
     * instance holds it).
     */
    claim: (id: number, instance: string, content: string, now = Date.now()) =>
      claim.get({ id, instance, content, now }),
    /** Discord confirmed it (`messageId`), or the channel shows it already (null). */
    delivered: (id: number, messageId: string | null, now = Date.now()) => void delivered.run({ id, messageId, now }),
    /** The attempt failed: lets go of the claim, to be tried again from `retryAt`. */
    retryLater: (id: number, instance: string, retryAt: number, error: string) =>
      void release.run({ id, instance, retryAt, error }),
    /** No more attempts. */
    giveUp: (id: number, instance: string, error: string, now = Date.now()) =>
      void giveUp.run({ id, instance, now, error }),
    /** Reminders the person still waits for (neither delivered nor given up). */
    pendingFor: (userId: string) => pending.get(userId) ?? 0,
    byId: (id: number) => byId.get(id),
  };
}

export type ReminderQueries = ReturnType<typeof createReminderQueries>;
