import type { Database } from 'better-sqlite3';

/** A member's report of one of the bot's answers (a Discord message a run posted). */
export interface AnswerReportRow {
  id: number;
  run_id: string;
  /** The reported Discord message: one of the run's `posted_message_ids`. */
  message_id: string;
  guild_id: string;
  reporter_id: string;
  /** What the member wrote in the form; null when they wrote nothing. */
  reason: string | null;
  reported_at: number;
}

export type NewAnswerReport = Omit<AnswerReportRow, 'id' | 'reported_at'>;

/** Reports of answers: stored once per person per answer, read with their run. */
export function createAnswerReportQueries(db: Database) {
  // The UNIQUE (message_id, reporter_id) key makes a second report of the same answer a no-op.
  const insert = db.prepare<[string, string, string, string, string | null, number]>(
    `INSERT INTO answer_reports (run_id, message_id, guild_id, reporter_id, reason, reported_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (message_id, reporter_id) DO NOTHING`,
  );
  const byId = db.prepare<[number | bigint], AnswerReportRow>('SELECT * FROM answer_reports WHERE id = ?');
  const ofRun = db.prepare<[string], AnswerReportRow>(
    'SELECT * FROM answer_reports WHERE run_id = ? ORDER BY reported_at, id',
  );
  const exists = db
    .prepare<[string, string], number>('SELECT count(*) FROM answer_reports WHERE message_id = ? AND reporter_id = ?')
    .pluck();

  return {
    /** Stores the report; returns it, or undefined when this person had reported this answer already. */
    add(report: NewAnswerReport, now = Date.now()): AnswerReportRow | undefined {
      const result = insert.run(
        report.run_id,
        report.message_id,
        report.guild_id,
        report.reporter_id,
        report.reason,
        now,
      );
      return result.changes === 0 ? undefined : byId.get(result.lastInsertRowid);
    },
    /** Whether this person reported this answer already. */
    hasReported: (messageId: string, reporterId: string) => exists.get(messageId, reporterId)! > 0,
    /** The run's reports, oldest first. */
    ofRun: (runId: string) => ofRun.all(runId),
  };
}
