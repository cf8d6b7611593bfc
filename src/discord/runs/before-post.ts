/**
 * The seat before posting: what a run's words pass before they are posted, whichever path they came
 * by: a run's end (post-answer.ts `deliver`), or an answer a cut-off run had reached, posted at the
 * next start (resume-run.ts). Each entry is one policy; a new policy is a new entry here, not an
 * edit of the paths. A notice of the bot's own (a limit, an error) passes without them: it quotes
 * nobody.
 */
import type { FinalAnswer } from '../../agent/final-answer.ts';
import { answerHeldNotice, type AnswerScreen } from '../../content-check/answer-screen.ts';
import type { BotServices } from '../bot-services.ts';

/** A run's words about to be posted: its answer (if it reached one), and what was shown of it as it was written. */
export interface WordsAtPost {
  runId: string;
  answer: FinalAnswer | null;
  /** What the live answer showed (STREAM_ANSWERS), or null. */
  shown: string | null;
  /** The content check of the answer where its place checks; null: not checked there. */
  screen: AnswerScreen | null;
}

/** What becomes of them: posted as they are, dropped (nothing of the model's is posted), or held back with this text instead. */
export type PostVerdict = { kind: 'post' } | { kind: 'drop'; why: string } | { kind: 'hold'; text: string };

type BeforePostEntry = (services: Pick<BotServices, 'store'>, words: WordsAtPost) => Promise<PostVerdict>;

/**
 * Its row went while it ran: a forget of one of its people that could not stop it first (`npm run
 * forget`, another process; a run that took longer than /forget-me waits). Its words may quote
 * them: nothing of the model's is posted, and what was shown goes.
 */
const notForgotten: BeforePostEntry = async (services, words) => {
  const modelWords = words.answer !== null || words.shown !== null;
  return modelWords && !services.store.runs.byId(words.runId)
    ? { kind: 'drop', why: 'its run was forgotten meanwhile' }
    : { kind: 'post' };
};

/**
 * The answer's content check (what the pieces shown did not cover): held back, what was shown
 * ends with why, or the notice stands alone.
 */
const answerChecked: BeforePostEntry = async (_services, { answer, shown, screen }) => {
  if (!answer || !screen || (await screen.allows(answer.answer))) return { kind: 'post' };
  const text =
    shown === null ? answerHeldNotice(screen.held!, false) : `${shown}\n-# ${answerHeldNotice(screen.held!, true)}`;
  return { kind: 'hold', text };
};

const entries: readonly BeforePostEntry[] = [notForgotten, answerChecked];

/** Passes a run's words through the seat: the first entry that does not let them pass as they are decides. */
export async function beforePost(services: Pick<BotServices, 'store'>, words: WordsAtPost): Promise<PostVerdict> {
  for (const entry of entries) {
    const verdict = await entry(services, words);
    if (verdict.kind !== 'post') return verdict;
  }
  return { kind: 'post' };
}
