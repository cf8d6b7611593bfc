/**
 * Case: `final_answer` beside other calls at the last step. No model call follows, so tools run
 * now could not be used: a valid answer beside them is taken, and they are not run. Without one,
 * the run stops at its step limit.
 */
import type { ToolCall, ToolMessage } from '../messages.ts';
import { notExecuted } from './calls-not-run.ts';
import { settleFinalAnswers } from './final-answers.ts';
import { answered, type RunState, stopped, type Turn, type TurnOutcome } from './turn.ts';

/** The reply to each call other than `final_answer` in this case. */
const stepLimitText = 'Not executed: the step limit was reached, and the answer given in this turn was taken.';

/** `others`: the turn's calls other than `final_answer`, in the model's order. */
export function answerAtLastStep(run: RunState, turn: Turn, others: readonly ToolCall[]): TurnOutcome {
  const finalCalls = turn.calls.filter((call) => !others.includes(call));
  const settled = settleFinalAnswers(run, turn.step, finalCalls);
  const finals = new Map(finalCalls.map((call, index) => [call, settled.replies[index] as ToolMessage]));
  run.messages.push(...turn.calls.map((call) => finals.get(call) ?? notExecuted(run, turn.step, call, stepLimitText)));
  return settled.answer ? answered(settled.answer) : stopped('step-limit');
}
