/**
 * Calls the loop answers without running them, so that every `tool_call_id` gets exactly one tool
 * message and the transcript can always be sent again: one the turn's rule leaves out (said so in
 * the step log too), and those a run's ending cut off.
 */
import type { ChatMessage, ToolCall, ToolMessage } from '../messages.ts';
import type { RunState } from './turn.ts';

/** Answers a call the loop does not run with `text`, and tells it as a `not-executed` error. */
export function notExecuted(
  run: Pick<RunState, 'runId' | 'emit'>,
  step: number,
  call: ToolCall,
  text: string,
): ToolMessage {
  run.emit({
    type: 'tool-error',
    runId: run.runId,
    step,
    callId: call.id,
    name: call.function.name,
    kind: 'not-executed',
    error: text,
    durationMs: 0,
  });
  return { role: 'tool', tool_call_id: call.id, content: text };
}

/**
 * Answers, as cancelled, any call of the last assistant message that has no tool message yet (a
 * fault mid-turn).
 */
export function answerOpenCalls(messages: ChatMessage[]): void {
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const last = messages[lastAssistant];
  if (last?.role !== 'assistant' || !last.tool_calls) return;
  const answered = new Set(
    messages.slice(lastAssistant + 1).flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])),
  );
  for (const call of last.tool_calls) {
    if (!answered.has(call.id))
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: 'Cancelled: the run ended before this call finished.',
      });
  }
}
