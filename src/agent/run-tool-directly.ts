import { randomUUID } from 'node:crypto';
import { type AgentEventSink, fanOut } from './events.ts';
import { noUsage } from './messages.ts';
import type { ConversationContext, RuntimeTool } from './tool.ts';
import type { ToolImage } from './tool-images.ts';
import { runToolTurn } from './tool-turn.ts';

export interface DirectToolCall {
  runId: string;
  /** What the step log shows in place of a model, e.g. "direct (/tool by 42)". */
  label: string;
  tool: RuntimeTool;
  /** Arguments already validated by the caller (they are validated again, as every call's are). */
  args: unknown;
  context: ConversationContext;
  toolTimeoutMs: number;
  /** Masked in its result and error (AgentSettings.secrets). */
  secrets?: readonly string[];
  onEvent: AgentEventSink;
  /** Stops the call (the person's `/forget-me`): the tool is cancelled as a stopped run's are. */
  signal?: AbortSignal;
}

/**
 * Runs one tool for a person, without the model, as a run of its own with the same events as an
 * agent run (run-start, tool-call, tool-result or tool-error, run-end) and the same executor, so
 * that every sink (step log, memory, logs) records it exactly as it records the agent's calls.
 */
export async function runToolDirectly(
  call: DirectToolCall,
): Promise<{ ok: boolean; text: string; images: readonly ToolImage[] }> {
  const emit = fanOut([call.onEvent], call.context.logger);
  const started = performance.now();
  const { runId, tool } = call;
  emit({
    type: 'run-start',
    runId,
    conversationId: call.context.conversationId,
    model: call.label,
    toolNames: [tool.name],
    at: new Date(),
  });
  const toolCall = {
    id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    type: 'function' as const,
    function: { name: tool.name, arguments: JSON.stringify(call.args) },
  };
  let outcome: { ok: boolean; text: string; images?: readonly ToolImage[] } | undefined;
  const turn = await runToolTurn({
    runId,
    step: 1,
    calls: [toolCall],
    tools: new Map([[tool.name, tool]]),
    maxCalls: 1,
    toolTimeoutMs: call.toolTimeoutMs,
    secrets: call.secrets,
    runSignal: call.signal ?? new AbortController().signal,
    // The person named this call themselves: that is its confirmation (the agent's calls are asked).
    context: { ...call.context, confirmTool: async (request) => ({ decision: 'confirmed', by: request.requester }) },
    emit: (event) => {
      // The person's images: those the tool meant for people (or for anyone).
      if (event.type === 'tool-result') outcome = { ok: true, text: event.result, images: event.images ?? [] };
      if (event.type === 'tool-error') outcome = { ok: false, text: event.error };
      emit(event);
    },
  });
  outcome ??= { ok: false, text: turn.messages[0]?.content ?? 'Error: no result' };
  const stopped = !outcome.ok && call.signal?.aborted === true;
  emit({
    type: 'run-end',
    runId,
    status: outcome.ok ? 'answered' : stopped ? 'stopped' : 'failed',
    stopReason: stopped ? 'aborted' : null,
    userMessage: null,
    error: outcome.ok ? null : outcome.text,
    errorCode: outcome.ok ? null : 'tool-error',
    steps: 0,
    usage: noUsage,
    durationMs: performance.now() - started,
  });
  return { ok: outcome.ok, text: outcome.text, images: outcome.images ?? [] };
}
