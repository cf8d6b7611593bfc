/**
 * What the loop tells the model (nudges, observations) and people (why a run stopped without an
 * answer): the words, apart from the loop that decides when.
 */
import { formatTimeLimit } from '../text/duration.ts';
import type { StopReason } from './events.ts';

/** Sent once when the model answers in plain text although a tool call was required. */
export const plainTextNudge =
  'You replied in plain text, but every reply must be a tool call. Call final_answer with your answer, or another tool if you need one.';

/** Calls in a row the server could not read, each answered with an observation, before the run gives up. */
export const maxRejectedCalls = 2;

/** What the model is told when the server could not read the call it wrote. */
export const rejectedCallNote = (problem: string) =>
  `Your last reply was not a tool call that could be read: ${problem}. Call the tool again, with arguments written as valid JSON for its schema.`;

/** The rule for `final_answer` beside other tools: those run, the answer waits for their results. */
export const finalAnswerAloneText =
  'Not executed: call final_answer alone, in a turn of its own, once you have read these results.';
export const stepLimitText = 'Not executed: the step limit was reached, and the answer given in this turn was taken.';

/** Why a run stopped without an answer, in words for the people who asked. */
export function stopMessage(reason: StopReason, settings: { maxSteps: number; runTimeoutMs: number }): string {
  switch (reason) {
    case 'step-limit':
      return `I stopped after ${settings.maxSteps} steps without reaching an answer. Try a narrower question.`;
    case 'time-limit':
      return `I ran out of time (${formatTimeLimit(settings.runTimeoutMs)}) before reaching an answer.`;
    case 'aborted':
      return 'Stopped before an answer was reached.';
    case 'no-answer':
      return 'The model replied without an answer. Please try again, or rephrase.';
  }
}
