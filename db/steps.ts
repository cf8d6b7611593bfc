import type { Database } from 'better-sqlite3';

export interface StepRow {
  id: number;
  run_id: string;
  sequence: number;
  kind: 'model-call' | 'tool-call' | 'final-answer';
  /** The agent loop's step (model call) this belongs to. */
  model_step: number;
  /** The full assistant message of a model call, as JSON. */
  message: string | null;
  tool_name: string | null;
  tool_call_id: string | null;
  arguments: string | null;
  status: 'started' | 'ok' | 'error';
  result: string | null;
  error: string | null;
  error_kind: string | null;
  /** What the row alone cannot say, such as "plain-text fallback" on an answer. */
  note: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** Of the prompt tokens, those the server took from its cache (null where it did not say). */
  cached_tokens: number | null;
  duration_ms: number | null;
  started_at: number;
  ended_at: number | null;
}

export type NewStep = Omit<StepRow, 'id' | 'ended_at' | 'note' | 'cached_tokens'> & {
  ended_at?: number | null;
  note?: string | null;
  cached_tokens?: number | null;
};

export function createStepQueries(db: Database) {
  const insert = db.prepare(
    `INSERT INTO steps (run_id, sequence, kind, model_step, message, tool_name, tool_call_id, arguments, status, result, error, error_kind,
       note, prompt_tokens, completion_tokens, cached_tokens, duration_ms, started_at, ended_at)
     VALUES (@run_id, @sequence, @kind, @model_step, @message, @tool_name, @tool_call_id, @arguments, @status, @result, @error, @error_kind,
       @note, @prompt_tokens, @completion_tokens, @cached_tokens, @duration_ms, @started_at, @ended_at)`,
  );
  const complete = db.prepare(
    `UPDATE steps SET status = @status, result = @result, error = @error, error_kind = @error_kind, duration_ms = @duration_ms, ended_at = @ended_at,
       note = COALESCE(@note, note)
     WHERE id = @id`,
  );
  const ofRun = db.prepare<[string], StepRow>('SELECT * FROM steps WHERE run_id = ? ORDER BY sequence');

  return {
    insert: (step: NewStep) =>
      Number(insert.run({ ended_at: null, note: null, cached_tokens: null, ...step }).lastInsertRowid),
    complete: (
      id: number,
      end: {
        status: 'ok' | 'error';
        result: string | null;
        error: string | null;
        error_kind: string | null;
        duration_ms: number;
        /** Kept as it was when absent. */
        note?: string | null;
      },
      now = Date.now(),
    ) => void complete.run({ id, note: null, ...end, ended_at: now }),
    ofRun: (runId: string) => ofRun.all(runId),
  };
}

export type StepQueries = ReturnType<typeof createStepQueries>;
