import type { Database } from 'better-sqlite3';

/** A question or answer a content check flagged (migration 14). */
export interface ContentFlagRow {
  id: number;
  conversation_id: number;
  /** The run whose answer was flagged; null for a question (it started no run). */
  run_id: string | null;
  /** The stored message: the question flagged, or the one the flagged answer answers. */
  message_id: number | null;
  target: 'question' | 'answer';
  kind: 'moderations' | 'guard';
  /** JSON: `{"categories": [names], "scores": {name: score}}`. */
  categories: string;
  flagged_at: number;
}

export type NewContentFlag = Omit<ContentFlagRow, 'id' | 'categories' | 'flagged_at'> & {
  categories: readonly string[];
  scores: Readonly<Record<string, number>>;
};

/** The content flags: written when a check flags something, read by the step log and `/steps status:flagged`. */
export function createContentFlagQueries(db: Database) {
  const insert = db.prepare(
    `INSERT INTO content_flags (conversation_id, run_id, message_id, target, kind, categories, flagged_at)
     VALUES (@conversation_id, @run_id, @message_id, @target, @kind, @categories, @flagged_at)`,
  );
  const questionFlagged = db
    .prepare<[number], number>(`SELECT 1 FROM content_flags WHERE message_id = ? AND target = 'question'`)
    .pluck();
  const ofRun = db.prepare<[string], ContentFlagRow>('SELECT * FROM content_flags WHERE run_id = ? ORDER BY id');
  const ofConversation = db.prepare<[number], ContentFlagRow>(
    'SELECT * FROM content_flags WHERE conversation_id = ? ORDER BY id',
  );
  return {
    /** Records a flag; returns its id. */
    add: (flag: NewContentFlag, now = Date.now()) =>
      Number(
        insert.run({
          conversation_id: flag.conversation_id,
          run_id: flag.run_id,
          message_id: flag.message_id,
          target: flag.target,
          kind: flag.kind,
          categories: JSON.stringify({ categories: flag.categories, scores: flag.scores }),
          flagged_at: now,
        }).lastInsertRowid,
      ),
    /** Whether this stored message was flagged as a question (it is then never answered). */
    questionFlagged: (messageId: number) => questionFlagged.get(messageId) !== undefined,
    ofRun: (runId: string) => ofRun.all(runId),
    ofConversation: (conversationId: number) => ofConversation.all(conversationId),
  };
}
