/**
 * Case: the server could not read the call the model wrote. The model hears why and tries again,
 * twice in a row at most, so that a model that keeps writing broken calls ends the run. At the
 * last step no model call follows: the run stops there.
 */
import { nextTurn, type RunState, stopped, type Turn, type TurnOutcome } from './turn.ts';

/** Calls in a row the server could not read, each answered with an observation, before the run gives up. */
const maxRejectedCalls = 2;

/** What the model is told when the server could not read the call it wrote. */
export const rejectedCallNote = (problem: string) =>
  `Your last reply was not a tool call that could be read: ${problem}. Call the tool again, with arguments written as valid JSON for its schema.`;

export function rejectedCall(run: RunState, turn: Turn, problem: string): TurnOutcome {
  if (turn.lastStep) return stopped('step-limit');
  if (run.rejectedCalls >= maxRejectedCalls) return stopped('no-answer');
  run.rejectedCalls += 1;
  run.messages.push({ role: 'user', content: rejectedCallNote(problem) });
  return nextTurn;
}
