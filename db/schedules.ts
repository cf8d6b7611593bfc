import type { Database } from 'better-sqlite3';
import { staleAfterMs } from './instances.ts';

/** A prompt moderators set to run at times in a channel (`/schedule`). */
export interface ScheduleRow {
  id: number;
  guild_id: string;
  channel_id: string;
  name: string;
  prompt: string;
  /** What the moderator wrote (`daily 09:00`, a cron expression). */
  when_text: string;
  cron: string;
  time_zone: string;
  /** A new thread named for the schedule per run, or one message in the channel. */
  post_as: 'thread' | 'message';
  /** The model and persona of its runs' threads; null: the channel's. */
  model: string | null;
  persona: string | null;
  created_by_id: string;
  created_by_name: string;
  created_at: number;
  /** The next due time; null while paused, or when it never comes again. */
  next_run_at: number | null;
  paused_at: number | null;
}

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
  /** claimed: its message not yet stored; queued: a normal run owes it now; failed: given up. */
  state: 'claimed' | 'queued' | 'failed';
  /** The header message posted for it: its conversation's key is made from this id. */
  header_id: string | null;
  error: string | null;
}

export type NewSchedule = Pick<
  ScheduleRow,
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
  r.state = 'claimed' AND (r.claimed_by IS NULL OR NOT EXISTS (
    SELECT 1 FROM instances i WHERE i.id = r.claimed_by AND i.stopped_at IS NULL AND i.heartbeat_at >= @now - ${staleAfterMs}
  ))`;

export function createScheduleQueries(db: Database) {
  const insert = db.prepare<NewSchedule & { created_at: number }>(`
    INSERT INTO schedules (guild_id, channel_id, name, prompt, when_text, cron, time_zone, post_as, model, persona, created_by_id, created_by_name, created_at, next_run_at)
    VALUES (@guild_id, @channel_id, @name, @prompt, @when_text, @cron, @time_zone, @post_as, @model, @persona, @created_by_id, @created_by_name, @created_at, @next_run_at)`);
  const byId = db.prepare<[number], ScheduleRow>('SELECT * FROM schedules WHERE id = ?');
  const inGuild = db.prepare<[string], ScheduleRow>('SELECT * FROM schedules WHERE guild_id = ? ORDER BY id');
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
    add: (schedule: NewSchedule, now = Date.now()) =>
      Number(insert.run({ ...schedule, created_at: now }).lastInsertRowid),
    byId: (id: number) => byId.get(id),
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
