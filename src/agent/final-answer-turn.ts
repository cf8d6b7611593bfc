import { errorMessage } from './errors.ts';
import type { AgentEventSink } from './events.ts';
import { correctToolsUsed, type FinalAnswer, finalAnswerSchema, finalAnswerToolName } from './final-answer.ts';
import type { ToolCall, ToolMessage } from './messages.ts';
import { zodValidate } from './runtime-tool.ts';

export interface FinalAnswerTurn {
  runId: string;
  step: number;
  /** The turn's calls, all of them `final_answer`. */
  calls: readonly ToolCall[];
  /** Tools executed so far in the run: `tools_used` is corrected to a subset of them. */
  called: ReadonlySet<string>;
  emit: AgentEventSink;
}

/**
 * Settles a turn of `final_answer` calls: the first that validates is the answer; one that fails
 * goes back to the model with its issues; any after the answer are ignored. Each call gets its
 * tool message, so the history stays valid.
 */
export function settleFinalAnswers(turn: FinalAnswerTurn): { answer: FinalAnswer | null; replies: ToolMessage[] } {
  let answer: FinalAnswer | null = null;
  const replies = turn.calls.map((call): ToolMessage => {
    const reply = (content: string): ToolMessage => ({ role: 'tool', tool_call_id: call.id, content });
    if (answer) {
      // Not run, and said so in the step log too, so that every call of the turn has its step.
      const text = 'Ignored: an answer was already given in this turn.';
      turn.emit({
        type: 'tool-error',
        runId: turn.runId,
        step: turn.step,
        callId: call.id,
        name: finalAnswerToolName,
        kind: 'not-executed',
        error: text,
        durationMs: 0,
      });
      return reply(text);
    }
    const validated = validate(call.function.arguments);
    if (Array.isArray(validated)) {
      const text = `Your final_answer was not accepted:\n- ${validated.join('\n- ')}\nCall final_answer again with these fixed.`;
      turn.emit({
        type: 'tool-error',
        runId: turn.runId,
        step: turn.step,
        callId: call.id,
        name: finalAnswerToolName,
        kind: 'invalid-arguments',
        error: text,
        durationMs: 0,
      });
      return reply(text);
    }
    answer = { ...validated, tools_used: correctToolsUsed(validated.tools_used, turn.called) };
    turn.emit({ type: 'final-answer', runId: turn.runId, step: turn.step, callId: call.id, answer, fallback: null });
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
  const result = zodValidate(finalAnswerSchema, parsed);
  return result.ok ? (result.value as FinalAnswer) : result.issues;
}
