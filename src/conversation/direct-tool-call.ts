import { randomUUID } from 'node:crypto';
import type { ConversationRow } from '../../db/conversations.ts';
import { directCallModel } from '../../db/runs.ts';
import type { Store } from '../../db/store.ts';
import { runToolDirectly } from '../agent/run-tool-directly.ts';
import type { ConversationContext, RuntimeTool } from '../agent/tool.ts';
import type { ToolImage } from '../agent/tool-images.ts';
import type { ConversationMemory } from '../memory/conversation-memory.ts';

export interface DirectCall {
  conversation: ConversationRow;
  /** Whether the conversation's memory should hold the call (a conversation thread). */
  remember: boolean;
  tool: RuntimeTool;
  args: unknown;
  context: ConversationContext;
  timeoutMs: number;
  /** Masked in its result and error (AgentSettings.secrets). */
  secrets?: readonly string[];
  instanceId: string;
  /** The Discord id of the person who ran it. */
  requester: string;
  /** Stops the call (their `/forget-me`). */
  signal?: AbortSignal;
}

/**
 * Runs a tool for a person, without the model, through the same sinks as the agent's runs, in
 * their transaction: a run (model "direct") with its tool-call step in the step log and, in a
 * conversation thread, the call and its result in memory, so the agent can refer to it later.
 */
export async function runDirectToolCall(
  store: Store,
  memory: ConversationMemory,
  call: DirectCall,
): Promise<{ ok: boolean; text: string; images: readonly ToolImage[]; runId: string }> {
  const runId = randomUUID();
  const { conversation, context } = call;
  // In memory, the call follows the newest message of the conversation.
  const answersId = store.messages.newestId(conversation.id) || null;
  await memory.ready();
  const record = memory.runSink(
    conversation.id,
    call.instanceId,
    { answersId, remember: call.remember },
    context.logger,
  );
  const outcome = await runToolDirectly({
    runId,
    label: directCallModel(call.requester),
    tool: call.tool,
    args: call.args,
    context,
    toolTimeoutMs: call.timeoutMs,
    secrets: call.secrets,
    onEvent: record,
    signal: call.signal,
  });
  return { ...outcome, runId };
}
