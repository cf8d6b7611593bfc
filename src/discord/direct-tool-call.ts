import { randomUUID } from 'node:crypto';
import type { ConversationRow } from '../../db/conversations.ts';
import type { Store } from '../../db/store.ts';
import type { RuntimeTool, ToolContext } from '../agent/tool.ts';
import { formatObservation } from '../agent/tool-turn.ts';
import { untilAborted } from '../agent/until-aborted.ts';
import { UserFacingError } from '../errors.ts';
import type { TokenCounter } from '../memory/token-counter.ts';

export interface DirectCall {
  conversation: ConversationRow;
  /** Whether the conversation's memory should hold the call (a conversation thread). */
  remember: boolean;
  tool: RuntimeTool;
  args: unknown;
  context: Omit<ToolContext, 'signal'>;
  timeoutMs: number;
  instanceId: string;
  requester: string;
}

/**
 * Runs a tool for a person, without the model, and records it as the agent's own calls are: a run
 * (model "direct") with its tool-call step in the step log and, in a conversation thread, the call
 * and its result in memory, so the agent can refer to it later.
 */
export async function runDirectToolCall(store: Store, counter: TokenCounter, call: DirectCall): Promise<{ ok: boolean; text: string; runId: string }> {
  const runId = randomUUID();
  const callId = `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const argumentsText = JSON.stringify(call.args);
  const started = Date.now();
  store.runs.start({ id: runId, conversationId: call.conversation.id, instanceId: call.instanceId, triggerMessageIds: [], model: `direct (/tool by ${call.requester})` });
  const stepId = store.steps.insert({
    run_id: runId, sequence: 1, kind: 'tool-call', model_step: 0, message: null, tool_name: call.tool.name, tool_call_id: callId, arguments: argumentsText,
    status: 'started', result: null, error: null, error_kind: null, prompt_tokens: null, completion_tokens: null, duration_ms: null, started_at: started,
  });
  const signal = AbortSignal.timeout(call.timeoutMs);
  let outcome: { ok: boolean; text: string };
  try {
    const result = await untilAborted(Promise.resolve().then(() => call.tool.execute(call.args, { ...call.context, signal })), signal);
    outcome = { ok: true, text: formatObservation(result) };
  } catch (error) {
    const message = signal.aborted ? `did not finish within ${call.timeoutMs / 1000} seconds` : error instanceof UserFacingError ? error.userMessage : error instanceof Error ? error.message : String(error);
    outcome = { ok: false, text: `Error: ${message}` };
  }
  const durationMs = Date.now() - started;
  store.steps.complete(stepId, { status: outcome.ok ? 'ok' : 'error', result: outcome.ok ? outcome.text : null, error: outcome.ok ? null : outcome.text, error_kind: outcome.ok ? null : 'threw', duration_ms: durationMs });
  store.runs.finish(runId, { status: outcome.ok ? 'answered' : 'failed', stopReason: null, promptTokens: 0, completionTokens: 0, totalTokens: 0, error: outcome.ok ? null : outcome.text, errorCode: null });
  store.runs.markDelivered(runId);
  if (call.remember) {
    const answersId = store.messages.newestId(call.conversation.id);
    const toolCalls = JSON.stringify([{ id: callId, type: 'function', function: { name: call.tool.name, arguments: argumentsText } }]);
    const base = { conversationId: call.conversation.id, runId, authorId: null, authorName: null, discordMessageId: null, answersId: answersId || null };
    const head = store.messages.insertGroupHead({ ...base, role: 'assistant', content: '', toolCalls, toolCallId: null, tokenCount: counter.count(toolCalls) });
    store.messages.insert({ ...base, role: 'tool', content: outcome.text, toolCalls: null, toolCallId: callId, groupId: head, tokenCount: counter.count(outcome.text) });
  }
  return { ...outcome, runId };
}
