/**
 * A conversation's running summary (migration 15): what its memory window no longer holds, as the
 * place's model summed it up, with the range of messages it covers in conversation order. Written
 * with its summary run in one transaction; triggers keep it in step with edits, deletions and
 * /reset (see the migration).
 */
import type { Database } from 'better-sqlite3';
import type { MessageRow } from './messages.ts';

export interface SummaryRow {
  conversation_id: number;
  summary: string;
  /** The first and last message it covers, in conversation order (coalesce(answers_id, id)). */
  first_message_id: number;
  last_message_id: number;
  tokens: number;
  /** 1: a covered message was edited; the text is emptied and the summary is rebuilt. */
  stale: number;
  updated_at: number;
}

/** A summary run as the step log keeps it: one model call, settled and owing nothing when written. */
export interface SummaryRun {
  id: string;
  conversationId: number;
  instanceId: string;
  /** The people's messages it summed up (so that `/forget-me` finds the run, and its words, by them). */
  summarisedIds: readonly number[];
  model: string;
  modelName: string;
  startedAt: number;
  promptTokens: number;
  completionTokens: number;
  /** The summary written (the step's message), or null with `error` when the call failed. */
  summary: string | null;
  error: string | null;
  errorCode: string | null;
  note: string;
}

/** Where a new summary's range starts and ends, and what the summary it replaces was. */
export interface NewSummary {
  conversationId: number;
  summary: string;
  firstMessageId: number;
  lastMessageId: number;
  tokens: number;
  /** The row read before the call (null: there was none, or it was stale): it must not have changed. */
  replaces: Pick<SummaryRow, 'last_message_id' | 'updated_at'> | null;
  /** The conversation's memory start read before the call: a /reset meanwhile drops this summary. */
  memoryStartsAfter: number;
  /** The rows the call read, as it read them: one edited or deleted meanwhile drops this summary. */
  read: readonly { id: number; content: string }[];
}

export function createSummaryQueries(db: Database) {
  const byConversation = db.prepare<[number], SummaryRow>('SELECT * FROM memory_summaries WHERE conversation_id = ?');
  const memoryStart = db
    .prepare<[number], number>('SELECT memory_starts_after FROM conversations WHERE id = ?')
    .pluck();
  const upsert = db.prepare(
    `INSERT INTO memory_summaries (conversation_id, summary, first_message_id, last_message_id, tokens, stale, updated_at)
     VALUES (@conversationId, @summary, @firstMessageId, @lastMessageId, @tokens, 0, @now)
     ON CONFLICT (conversation_id) DO UPDATE SET summary = excluded.summary, first_message_id = excluded.first_message_id,
       last_message_id = excluded.last_message_id, tokens = excluded.tokens, stale = 0, updated_at = excluded.updated_at`,
  );
  // Oldest first in conversation order: a run's rows right after the message they answer.
  const inOrder = db.prepare<[number, number, number, number], MessageRow>(
    `SELECT * FROM messages WHERE conversation_id = ? AND coalesce(answers_id, id) > ? AND coalesce(answers_id, id) <= ?
     ORDER BY coalesce(answers_id, id), id LIMIT ?`,
  );
  const insertRun = db.prepare(
    `INSERT INTO runs (id, conversation_id, instance_id, trigger_message_ids, status, model, model_name, started_at, ended_at,
       prompt_tokens, completion_tokens, total_tokens, error, error_code, delivered_at, kind)
     VALUES (@id, @conversationId, @instanceId, @triggers, @status, @model, @modelName, @startedAt, @now,
       @promptTokens, @completionTokens, @totalTokens, @error, @errorCode, @now, 'summary')`,
  );
  const insertStep = db.prepare(
    `INSERT INTO steps (run_id, sequence, kind, model_step, message, status, error, error_kind, note, prompt_tokens, completion_tokens,
       duration_ms, started_at, ended_at)
     VALUES (@id, 0, 'model-call', 0, @message, @status, NULL, NULL, @note, @promptTokens, @completionTokens, @durationMs, @startedAt, @now)`,
  );

  const messageExists = db.prepare<[number], number>('SELECT 1 FROM messages WHERE id = ?').pluck();
  const contentOf = db.prepare<[number], string>('SELECT content FROM messages WHERE id = ?').pluck();

  /** Whether the summary read before the call is still the one stored, and the memory has not been reset. */
  const unchanged = (summary: NewSummary) => {
    const current = byConversation.get(summary.conversationId);
    const sameRow =
      summary.replaces === null
        ? current === undefined || current.stale === 1
        : current?.stale === 0 &&
          current.last_message_id === summary.replaces.last_message_id &&
          current.updated_at === summary.replaces.updated_at;
    return (
      sameRow &&
      memoryStart.get(summary.conversationId) === summary.memoryStartsAfter &&
      summary.read.every((row) => contentOf.get(row.id) === row.content)
    );
  };

  return {
    of: (conversationId: number) => byConversation.get(conversationId),
    /** Rows after `afterOrder` up to `throughOrder` in conversation order, oldest first, at most `limit`. */
    inOrder: (conversationId: number, afterOrder: number, throughOrder: number, limit: number) =>
      inOrder.all(conversationId, afterOrder, throughOrder, limit),
    /**
     * Records a summary run (settled: it owes no answer) and, when it wrote one, the summary it
     * wrote, unless the conversation changed under it (an edit, a deletion, a /reset): then the run
     * is recorded and the summary dropped. Returns whether the summary was stored.
     */
    record: db.transaction((run: SummaryRun, summary: NewSummary | null, now: number = Date.now()): boolean => {
      // A message it read was deleted during the call (/forget-me, retention): its words must not stay, in the summary or the step.
      const kept = run.summarisedIds.filter((id) => messageExists.get(id) !== undefined);
      if (kept.length < run.summarisedIds.length)
        run = {
          ...run,
          summarisedIds: kept,
          summary: null,
          error: 'a message it read was deleted meanwhile',
          errorCode: 'internal',
        };
      const failed = run.summary === null;
      if (failed) summary = null;
      insertRun.run({
        ...run,
        triggers: JSON.stringify(run.summarisedIds),
        status: failed ? 'failed' : 'answered',
        totalTokens: run.promptTokens + run.completionTokens,
        now,
      });
      // As an answer run's failed model call: the run's row says why, no step stands for it.
      if (!failed)
        insertStep.run({
          ...run,
          message: JSON.stringify({ role: 'assistant', content: run.summary }),
          status: 'ok',
          durationMs: now - run.startedAt,
          now,
        });
      if (summary === null || !unchanged(summary)) return false;
      upsert.run({ ...summary, now });
      return true;
    }),
  };
}
