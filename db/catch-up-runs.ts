/**
 * `/summarize`'s runs (kind 'catch-up', migration 20): one row in `runs` per summary asked for, in
 * the place's catch-up conversation (`discord:catch-up:<channel or thread>`), with a step per model
 * call (each piece summed up, then the pieces together) holding what the model wrote, and the
 * authors of the messages it read (`catch_up_authors`), the asker among them. The history itself is
 * never stored: it is read from Discord for the call and dropped.
 *
 * Its tokens count in the place's day as every run's do (the usage triggers of migration 16 take
 * the row's total on insert). A `/forget-me` of a member deletes every catch-up run of the place
 * that read their words or was asked by them (`forgetCatchUps`): a summary may quote anyone it read.
 */
import type { Database } from 'better-sqlite3';

/** The conversation a place's catch-up runs are recorded in (not a conversation people hold). */
export const catchUpConversationKey = (channelId: string) => `discord:catch-up:${channelId}`;

/** One model call of a catch-up: what it was for, and what the model wrote. */
export interface CatchUpCall {
  note: string;
  output: string;
  promptTokens: number;
  completionTokens: number;
  startedAt: number;
  endedAt: number;
}

/** A finished catch-up, as recorded. */
export interface CatchUpRun {
  id: string;
  conversationId: number;
  instanceId: string;
  model: string;
  modelName: string;
  startedAt: number;
  /** The place as the forgets table names it (db/forget-journal.ts `recordedPlace`). */
  placeId: string;
  /** Its server; null: a DM. */
  guildId: string | null;
  /** The asker and every author read. */
  authorIds: readonly string[];
  calls: readonly CatchUpCall[];
  /** Why it has no summary (null: it has one). */
  error: string | null;
}

/** Recording a catch-up run, in one transaction. */
/** Whether a member was forgotten in the place since a time: one look in the forgets_by_member index (migration 25). */
export const forgottenSinceQuery = 'SELECT 1 FROM forgets WHERE guild_id = ? AND user_id = ? AND forgotten_at >= ?';

export function createCatchUpRunQueries(db: Database) {
  const insertRun = db.prepare(
    `INSERT INTO runs (id, conversation_id, instance_id, trigger_message_ids, status, model, model_name, started_at, ended_at,
       prompt_tokens, completion_tokens, total_tokens, error, error_code, delivered_at, kind)
     VALUES (@id, @conversationId, @instanceId, '[]', @status, @model, @modelName, @startedAt, @now,
       @promptTokens, @completionTokens, @totalTokens, @error, @errorCode, @now, 'catch-up')`,
  );
  const insertStep = db.prepare(
    `INSERT INTO steps (run_id, sequence, kind, model_step, message, status, note, prompt_tokens, completion_tokens,
       duration_ms, started_at, ended_at)
     VALUES (@runId, @sequence, 'model-call', @sequence, @message, 'ok', @note, @promptTokens, @completionTokens,
       @durationMs, @startedAt, @endedAt)`,
  );
  const insertAuthor = db.prepare<[string, string, string | null]>(
    'INSERT OR IGNORE INTO catch_up_authors (run_id, author_id, guild_id) VALUES (?, ?, ?)',
  );
  const forgottenSince = db.prepare<[string, string, number], number>(forgottenSinceQuery).pluck();
  return {
    /**
     * Records it; not when one of its authors was forgotten in the place since it started (their
     * words may be in what it wrote: the seat before posting then finds no run and drops it).
     * Returns whether it was recorded.
     */
    record: db.transaction((run: CatchUpRun, now: number = Date.now()): boolean => {
      const authors = [...new Set(run.authorIds)];
      if (authors.some((author) => forgottenSince.get(run.placeId, author, run.startedAt) !== undefined)) return false;
      const promptTokens = run.calls.reduce((sum, call) => sum + call.promptTokens, 0);
      const completionTokens = run.calls.reduce((sum, call) => sum + call.completionTokens, 0);
      insertRun.run({
        id: run.id,
        conversationId: run.conversationId,
        instanceId: run.instanceId,
        status: run.error === null ? 'answered' : 'failed',
        model: run.model,
        modelName: run.modelName,
        startedAt: run.startedAt,
        now,
        promptTokens,
        completionTokens,
        totalTokens: promptTokens + completionTokens,
        error: run.error,
        errorCode: run.error === null ? null : 'catch-up',
      });
      for (const [sequence, call] of run.calls.entries())
        insertStep.run({
          runId: run.id,
          sequence,
          message: JSON.stringify({ role: 'assistant', content: call.output }),
          note: call.note,
          promptTokens: call.promptTokens,
          completionTokens: call.completionTokens,
          durationMs: call.endedAt - call.startedAt,
          startedAt: call.startedAt,
          endedAt: call.endedAt,
        });
      for (const author of authors) insertAuthor.run(run.id, author, run.guildId);
      return true;
    }),
  };
}

/**
 * Inside a forget's transaction (db/forget-member.ts): the catch-up runs of the place (`inPlace` on
 * `c`) that read `:user`'s words or were asked by them, with their steps. Returns how many went.
 */
export function forgetCatchUps(db: Database, inPlace: string, parameters: Record<string, string>): number {
  return db
    .prepare(
      `DELETE FROM runs WHERE kind = 'catch-up'
         AND id IN (SELECT run_id FROM catch_up_authors WHERE author_id = :user)
         AND conversation_id IN (SELECT c.id FROM conversations c WHERE ${inPlace})`,
    )
    .run(parameters).changes;
}
