/**
 * Case: the model replied in plain text, with no tool call, although one was required. It is told
 * so once; plain text after that, or at the last step, is taken as the answer (the documented
 * fallback for servers that ignore `tool_choice`). An empty reply after the nudge ends the run.
 */
import { truncate } from '../../text/truncate.ts';
import type { FinalAnswer } from '../final-answer.ts';
import { answered, nextTurn, type RunState, stopped, type Turn, type TurnOutcome } from './turn.ts';

/**
 * How much of a reply cut at the length limit goes back with the nudge. A reply that ran to the
 * length limit may have filled the server's context: sent back whole, the next request cannot fit
 * (llama-server at its default 2,048 tokens answered every nudge "400 request (… tokens) exceeds
 * the available context size", issue 38). Its start is enough for the model to see what it did.
 */
const cutReplyKept = 400;

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
  if (turn.finishReason === 'length') keepStartOnly(run, turn);
  run.messages.push({ role: 'user', content: plainTextNudge });
  return nextTurn;
}

/** The reply as it goes back to the model: its start, marked as cut (the whole of it stays the answer's, if it becomes one). */
function keepStartOnly(run: RunState, turn: Turn): void {
  const at = run.messages.lastIndexOf(turn.message);
  if (at === -1 || (turn.message.content ?? '').length <= cutReplyKept) return;
  const content = `${truncate(turn.message.content ?? '', cutReplyKept)} [cut off at the length limit]`;
  run.messages[at] = { ...turn.message, content };
}
