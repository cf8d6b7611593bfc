/**
 * Migration 25: `remind_me`'s reminders become members' one-off schedules (kind 'reminder'), so one
 * scheduler claims both (src/discord/outbound/scheduled-runs.ts). Every row of the old `reminders`
 * table is copied, in the migration's transaction, as a schedule whose owner is the member:
 *
 * - waiting, never tried: due at its time (next_run_at), claimed by the next pass like any schedule;
 * - waiting, tried already (a claim, maybe a post whose answer was lost): its time claimed, with the
 *   attempts, the claim's holder, the wait before the next attempt and the text first written, so
 *   the next attempt looks for that text in the channel before posting (none lost, none twice);
 * - delivered or given up: a run posted or failed, kept as the reminder was.
 */
import type { Database } from 'better-sqlite3';

interface OldReminder {
  guild_id: string | null;
  channel_id: string;
  user_id: string;
  text: string;
  due_at: number;
  created_at: number;
  delivered_at: number | null;
  claimed_by: string | null;
  attempts: number;
  first_attempt_at: number | null;
  retry_at: number | null;
  content: string | null;
  message_id: string | null;
  given_up_at: number | null;
  last_error: string | null;
}

/** The state of the claimed time an old reminder becomes; null: never tried, still due. */
function runState(reminder: OldReminder): 'posted' | 'failed' | 'claimed' | null {
  if (reminder.delivered_at !== null) return 'posted';
  if (reminder.given_up_at !== null) return 'failed';
  return reminder.attempts > 0 ? 'claimed' : null;
}

/** Copies every reminder into `schedules` (and `schedule_runs`), then drops the old table. */
export function remindersToSchedules(db: Database): void {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'reminders'").get();
  if (hasTable === undefined) return;
  const insertSchedule = db.prepare(`
    INSERT INTO schedules (kind, guild_id, channel_id, name, prompt, when_text, cron, time_zone, post_as, model, persona, created_by_id, created_by_name, created_at, next_run_at)
    VALUES ('reminder', @guild_id, @channel_id, 'reminder', @text, @when_text, NULL, 'UTC', 'message', NULL, NULL, @user_id, @user_id, @created_at, @next_run_at)`);
  const insertRun = db.prepare(`
    INSERT INTO schedule_runs (schedule_id, due_at, missed, claimed_at, claimed_by, attempts, state, header_id, error, retry_at, posted_text)
    VALUES (@schedule_id, @due_at, 0, @claimed_at, @claimed_by, @attempts, @state, @message_id, @last_error, @retry_at, @content)`);
  for (const reminder of db.prepare('SELECT * FROM reminders ORDER BY id').all() as OldReminder[]) {
    const state = runState(reminder);
    const scheduleId = insertSchedule.run({
      ...reminder,
      when_text: new Date(reminder.due_at).toISOString(),
      next_run_at: state === null ? reminder.due_at : null,
    }).lastInsertRowid;
    if (state === null) continue;
    insertRun.run({
      ...reminder,
      schedule_id: scheduleId,
      state,
      claimed_at: reminder.first_attempt_at ?? reminder.delivered_at ?? reminder.due_at,
      claimed_by: state === 'claimed' ? reminder.claimed_by : null,
    });
  }
  db.exec('DROP TABLE reminders');
}
