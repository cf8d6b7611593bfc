/**
 * Case: the model replied in plain text, with no tool call, although one was required. It is told
 * so once; plain text after that, or at the last step, is taken as the answer (the documented
 * fallback for servers that ignore `tool_choice`). An empty reply after the nudge ends the run.
 */
import type { FinalAnswer } from '../final-answer.ts';
import { answered, nextTurn, type RunState, stopped, type Turn, type TurnOutcome } from './turn.ts';

/** Sent once when the model answers in plain text although a tool call was required. */
export const plainTextNudge =
  'You replied in plain text, but every reply must be a tool call. Call final_answer with your answer, or another tool if you need one.';

export function plainText(run: RunState, turn: Turn): TurnOutcome {
  const text = turn.message.content?.trim() ?? '';
  if (text !== '' && (run.nudged || turn.lastStep)) {
    const answer: FinalAnswer = { answer: text, tools_used: [...run.called] };
    run.emit({ type: 'final-answer', runId: run.runId, step: turn.step, callId: null, answer, fallback: 'plain-text' });
    return answered(answer);
  }
  if (run.nudged) return stopped('no-answer');
  run.nudged = true;
  run.messages.push({ role: 'user', content: plainTextNudge });
  return nextTurn;
}
