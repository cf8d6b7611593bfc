/**
 * What a content check says of a text, whatever asked it (moderations-check.ts, guard-check.ts):
 * passed, flagged with its categories and scores, or no verdict at all (an outage).
 */

/** What is checked: a person's message before the model sees it, or the bot's answer before people do. */
export type CheckTarget = 'question' | 'answer';

/** A text to check, with the images that came with it (`data:` URLs) and, for an answer, its question. */
export interface CheckInput {
  target: CheckTarget;
  text: string;
  images?: readonly string[];
  /** For an answer: what it answers (a guard model judges the answer in its conversation). */
  question?: string;
}

export type ContentVerdict =
  | { outcome: 'passed' }
  /** `categories`: the names flagged; `scores`: each category's score, where the check gives them. */
  | { outcome: 'flagged'; categories: string[]; scores: Record<string, number> }
  /** The check did not answer, or not in a form that could be read: CONTENT_CHECK_ON_ERROR decides. */
  | { outcome: 'unavailable'; detail: string };

/** One check's client: moderations or a guard model. Never throws for the server's faults: says `unavailable`. */
export interface ContentChecker {
  /** `moderations` or `guard`, as the step log and log lines name it. */
  readonly kind: 'moderations' | 'guard';
  check(input: CheckInput, signal?: AbortSignal): Promise<ContentVerdict>;
}
