import type { Database } from 'better-sqlite3';
import { staleAfterMs } from './instances.ts';

/** What every schedule has, of either kind. */
interface ScheduleFields {
  id: number;
  channel_id: string;
  name: string;
  /** A routine's prompt; a reminder's text. */
  prompt: string;
  /** What the moderator wrote (`daily 09:00`, a cron expression); a reminder's time (ISO 8601). */
  when_text: string;
  time_zone: string;
  /** A new thread named for the schedule per run, or one message in the channel (a reminder's). */
  post_as: 'thread' | 'message';
  /** The model and persona of its runs' threads; null: the channel's. */
  model: string | null;
  persona: string | null;
  /** Who set it: a routine's moderator, a reminder's owner (the member it mentions). */
  created_by_id: string;
  created_by_name: string;
  created_at: number;
  /** The next due time; null while paused, or when it never comes again. */
  next_run_at: number | null;
  paused_at: number | null;
}

/** A prompt moderators set to run at times in a channel (`/schedule`). */
export interface RoutineRow extends ScheduleFields {
  kind: 'routine';
  guild_id: string;
  cron: string;
}

/** A member's one-off reminder (`remind_me`): due once, then posted as a message mentioning them. */
export interface ReminderScheduleRow extends ScheduleFields {
  kind: 'reminder';
  /** Null: set in a DM. */
  guild_id: string | null;
  cron: null;
}

/** What the one scheduler claims at its times: a routine or a reminder. */
export type ScheduleRow = RoutineRow | ReminderScheduleRow;

/** One due time of a schedule, claimed once (UNIQUE (schedule_id, due_at)). */
export interface ScheduleRunRow {
  id: number;
  schedule_id: number;
  due_at: number;
  /** Due times after `due_at` that passed in the same downtime and are run by this one run. */
  missed: number;
  claimed_at: number;
  /** The instance starting it now; a claim whose instance is gone is taken over. */
  claimed_by: string | null;
  attempts: number;
  /**
   * claimed: its message not yet stored (or, a reminder's, not yet posted); queued: a normal run owes
   * it now; posted: a reminder's message is in its channel; failed: given up.
   */
  state: 'claimed' | 'queued' | 'posted' | 'failed';
  /** The header message posted for it (its conversation's key is made from this id); a reminder's message. */
  header_id: string | null;
  error: string | null;
  /** Not taken again before then (a reminder's failed post); null: at the next pass. */
  retry_at: number | null;
  /** A reminder's message as its first attempt wrote it: every attempt posts exactly this. */
  posted_text: string | null;
}

/** A member's reminder, as remind_me sets it. */
interface NewReminder {
  guildId: string | null;
  channelId: string;
  userId: string;
  userName: string;
  text: string;
  dueAt: number;
}

export type NewSchedule = Pick<
  RoutineRow,
  | 'guild_id'
  | 'channel_id'
  | 'name'
  | 'prompt'
  | 'when_text'
  | 'cron'
  | 'time_zone'
  | 'post_as'
  | 'model'
  | 'persona'
  | 'created_by_id'
  | 'created_by_name'
  | 'next_run_at'
>;

/** A claimed run still to be started: nobody holds it, or its holder is gone (stopped, silent, unknown). */
const openRun = `
  r.state = 'claimed' AND (r.retry_at IS NULL OR r.retry_at <= @now) AND (r.claimed_by IS NULL OR NOT EXISTS (
    SELECT 1 FROM instances i WHERE i.id = r.claimed_by AND i.stopped_at IS NULL AND i.heartbeat_at >= @now - ${staleAfterMs}
  ))`;

/** What the scheduler does with a member's reminder: set it, count those waiting, record its attempts. */
function reminderQueries(db: Database) {
  const insertReminder = db.prepare<NewReminder & { now: number; whenText: string }>(`
    INSERT INTO schedules (kind, guild_id, channel_id, name, prompt, when_text, cron, time_zone, post_as, model, persona, created_by_id, created_by_name, created_at, next_run_at)
    VALUES ('reminder', @guildId, @channelId, 'reminder', @text, @whenText, NULL, 'UTC', 'message', NULL, NULL, @userId, @userName, @now, @dueAt)`);
  // Waiting: its time not yet claimed, or claimed and not yet posted nor given up.
  const pendingReminders = db
    .prepare<[string], number>(
      `SELECT count(*) FROM schedules s WHERE s.created_by_id = ? AND s.kind = 'reminder'
       AND (s.next_run_at IS NOT NULL OR EXISTS (SELECT 1 FROM schedule_runs r WHERE r.schedule_id = s.id AND r.state = 'claimed'))`,
    )
    .pluck();
  const posted = db.prepare<{ id: number; messageId: string | null }>(
    "UPDATE schedule_runs SET state = 'posted', header_id = @messageId, claimed_by = NULL, retry_at = NULL, error = NULL WHERE id = @id AND state = 'claimed'",
  );
  const retryLater = db.prepare<{ id: number; instance: string; retryAt: number; error: string }>(
    'UPDATE schedule_runs SET claimed_by = NULL, retry_at = @retryAt, error = @error WHERE id = @id AND claimed_by = @instance',
  );
  const keepText = db
    .prepare<{ id: number; text: string }, string>(
      'UPDATE schedule_runs SET posted_text = coalesce(posted_text, @text) WHERE id = @id RETURNING posted_text',
    )
    .pluck();
  return {
    /** A member's reminder, due once at `dueAt`. */
    addReminder: (reminder: NewReminder, now = Date.now()) =>
      Number(
        insertReminder.run({ ...reminder, now, whenText: new Date(reminder.dueAt).toISOString() }).lastInsertRowid,
      ),
    /** Reminders the member still waits for (neither posted nor given up). */
    pendingRemindersOf: (userId: string) => pendingReminders.get(userId) ?? 0,
    /** A reminder's message is in its channel (`messageId`; null: found there, posted by an earlier attempt). */
    posted: (id: number, messageId: string | null) => void posted.run({ id, messageId }),
    /** A reminder's attempt failed: lets go of the claim, to be taken again from `retryAt`. */
    retryLater: (id: number, instance: string, retryAt: number, error: string) =>
      void retryLater.run({ id, instance, retryAt, error }),
    /** The text this run's attempts post: `text`, unless an earlier attempt wrote one. */
    keepText: (id: number, text: string) => keepText.get({ id, text })!,
  };
}

export function createScheduleQueries(db: Database) {
  const insert = db.prepare<NewSchedule & { created_at: number }>(`
    INSERT INTO schedules (guild_id, channel_id, name, prompt, when_text, cron, time_zone, post_as, model, persona, created_by_id, created_by_name, created_at, next_run_at)
    VALUES (@guild_id, @channel_id, @name, @prompt, @when_text, @cron, @time_zone, @post_as, @model, @persona, @created_by_id, @created_by_name, @created_at, @next_run_at)`);
  const byId = db.prepare<[number], ScheduleRow>('SELECT * FROM schedules WHERE id = ?');
  const inGuild = db.prepare<[string], RoutineRow>(
    "SELECT * FROM schedules WHERE guild_id = ? AND kind = 'routine' ORDER BY id",
  );
  const due = db.prepare<{ now: number; limit: number }, ScheduleRow>(
    'SELECT * FROM schedules WHERE next_run_at IS NOT NULL AND next_run_at <= @now ORDER BY next_run_at LIMIT @limit',
  );
  const advance = db.prepare<{ id: number; dueAt: number; next: number | null }>(
    'UPDATE schedules SET next_run_at = @next WHERE id = @id AND next_run_at = @dueAt',
  );
  const insertRun = db.prepare<{ id: number; dueAt: number; missed: number; now: number }>(
    `INSERT INTO schedule_runs (schedule_id, due_at, missed, claimed_at, state) VALUES (@id, @dueAt, @missed, @now, 'claimed')
     ON CONFLICT (schedule_id, due_at) DO NOTHING`,
  );
  const open = db.prepare<{ now: number; limit: number }, ScheduleRunRow>(
    `SELECT r.* FROM schedule_runs r WHERE ${openRun} ORDER BY r.due_at LIMIT @limit`,
  );
  const take = db.prepare<{ id: number; instance: string; now: number }, ScheduleRunRow>(
    `UPDATE schedule_runs AS r SET claimed_by = @instance, attempts = attempts + 1 WHERE r.id = @id AND ${openRun} RETURNING *`,
  );
  const queued = db.prepare<{ id: number; headerId: string }>(
    "UPDATE schedule_runs SET state = 'queued', header_id = @headerId, claimed_by = NULL, error = NULL WHERE id = @id",
  );
  const release = db.prepare<{ id: number; instance: string; error: string }>(
    'UPDATE schedule_runs SET claimed_by = NULL, error = @error WHERE id = @id AND claimed_by = @instance',
  );
  const failed = db.prepare<{ id: number; error: string }>(
    "UPDATE schedule_runs SET state = 'failed', claimed_by = NULL, error = @error WHERE id = @id",
  );
  const setNext = db.prepare<{ id: number; next: number | null; pausedAt: number | null }>(
    'UPDATE schedules SET next_run_at = @next, paused_at = @pausedAt WHERE id = @id',
  );
  const remove = db.prepare<[number]>('DELETE FROM schedules WHERE id = ?');
  const runsOf = db.prepare<[number], ScheduleRunRow>(
    'SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY due_at',
  );
  const runById = db.prepare<[number], ScheduleRunRow>('SELECT * FROM schedule_runs WHERE id = ?');

  return {
    ...reminderQueries(db),
    add: (schedule: NewSchedule, now = Date.now()) =>
      Number(insert.run({ ...schedule, created_at: now }).lastInsertRowid),
    /** Of either kind: a moderator's command checks it is a routine. */
    byId: (id: number) => byId.get(id),
    /** The server's routines (`/schedule list`); members' reminders are theirs. */
    inGuild: (guildId: string) => inGuild.all(guildId),
    /** Schedules whose next time has come, oldest first. */
    due: (now: number, limit = 10_000) => due.all({ now, limit }),
    /**
     * Claims the schedule's due time `dueAt`, in one transaction: moves its next time to `next` and
     * records the run, unless another process did first (then undefined). `missed`: the due
     * times after `dueAt` this one run stands for.
     */
    claim: db.transaction(
      (id: number, dueAt: number, next: number | null, missed: number, now: number): ScheduleRunRow | undefined => {
        if (advance.run({ id, dueAt, next }).changes === 0) return undefined;
        const inserted = insertRun.run({ id, dueAt, missed, now });
        return inserted.changes === 0 ? undefined : runById.get(Number(inserted.lastInsertRowid));
      },
    ),
    /** Claimed runs whose message is not stored yet and that no live instance is starting. */
    open: (now: number, limit = 10_000) => open.all({ now, limit }),
    /** Takes an open run for `instance` (one more attempt); undefined if another took it. */
    take: (id: number, instance: string, now = Date.now()) => take.get({ id, instance, now }),
    /** Its message is stored (in the conversation of `headerId`): from now on the run lifecycle owes its answer. */
    queued: (id: number, headerId: string) => void queued.run({ id, headerId }),
    /** This attempt failed: another pass tries again. */
    release: (id: number, instance: string, error: string) => void release.run({ id, instance, error }),
    /** Given up. */
    failed: (id: number, error: string) => void failed.run({ id, error }),
    /** Pauses (next null) or resumes (its next time) a schedule. */
    setNext: (id: number, next: number | null, pausedAt: number | null) => void setNext.run({ id, next, pausedAt }),
    remove: (id: number) => remove.run(id).changes > 0,
    runsOf: (id: number) => runsOf.all(id),
    runById: (id: number) => runById.get(id),
  };
}
export type ScheduleQueries = ReturnType<typeof createScheduleQueries>;
