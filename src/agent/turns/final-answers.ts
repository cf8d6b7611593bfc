/**
 * Case: every call of the turn is `final_answer`. The first that validates is the answer and ends
 * the run; one that fails goes back to the model with its issues, and the model tries again.
 * `answer-at-last-step.ts` settles the answers of its turn here too.
 */
import { errorMessage } from '../errors.ts';
import { checkSources } from '../checked-sources.ts';
import { acceptedFinalAnswer, correctToolsUsed, type FinalAnswer, finalAnswerToolName } from '../final-answer.ts';
import type { ToolCall, ToolMessage } from '../messages.ts';
import { zodValidate } from '../runtime-tool.ts';
import { notExecuted } from './calls-not-run.ts';
import { answered, nextTurn, type RunState, type Turn, type TurnOutcome } from './turn.ts';

export function finalAnswers(run: RunState, turn: Turn): TurnOutcome {
  const settled = settleFinalAnswers(run, turn.step, turn.calls);
  run.messages.push(...settled.replies);
  return settled.answer ? answered(settled.answer) : nextTurn;
}

/**
 * Settles a turn's `final_answer` calls: the first that validates is the answer; one that fails
 * goes back to the model with its issues; any after the answer are ignored. Each call gets its
 * tool message, so the history stays valid.
 */
export function settleFinalAnswers(
  run: Pick<RunState, 'runId' | 'emit' | 'called' | 'sources'>,
  step: number,
  calls: readonly ToolCall[],
): { answer: FinalAnswer | null; replies: ToolMessage[] } {
  let answer: FinalAnswer | null = null;
  const replies = calls.map((call): ToolMessage => {
    const reply = (content: string): ToolMessage => ({ role: 'tool', tool_call_id: call.id, content });
    // Not run, and said so in the step log too, so that every call of the turn has its step.
    if (answer) return notExecuted(run, step, call, 'Ignored: an answer was already given in this turn.');
    const validated = validate(call.function.arguments);
    if (Array.isArray(validated)) {
      const text = `Your final_answer was not accepted:\n- ${validated.join('\n- ')}\nCall final_answer again with these fixed.`;
      run.emit({
        type: 'tool-error',
        runId: run.runId,
        step,
        callId: call.id,
        name: finalAnswerToolName,
        kind: 'invalid-arguments',
        error: text,
        durationMs: 0,
      });
      return reply(text);
    }
    const sources = checkSources(validated.sources ?? [], run.sources);
    answer = {
      ...validated,
      tools_used: correctToolsUsed(validated.tools_used, run.called),
      // As the model gave it when it gave none (left out, or null), so that an answer without sources stays as it was.
      ...(validated.sources ? { sources: sources.checked } : {}),
    };
    run.emit({
      type: 'final-answer',
      runId: run.runId,
      step,
      callId: call.id,
      answer,
      fallback: null,
      unverifiedSources: sources.unverified,
    });
    return reply('Answer delivered to the user.');
  });
  return { answer, replies };
}

/** The validated answer, or the issues that stop it. */
function validate(text: string): FinalAnswer | string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return [`the arguments are not valid JSON (${errorMessage(error)})`];
  }
  const result = zodValidate(acceptedFinalAnswer, parsed);
  return result.ok ? (result.value as FinalAnswer) : result.issues;
}
