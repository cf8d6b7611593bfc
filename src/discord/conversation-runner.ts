import type { Client, SendableChannels } from 'discord.js';
import type { ConversationRow } from '../../db/conversations.ts';
import type { RunRow } from '../../db/runs.ts';
import type { Store } from '../../db/store.ts';
import type { ChatMessage, UserMessage } from '../agent/messages.ts';
import type { Logger } from '../agent/logger.ts';
import type { LimitedModelClient } from '../agent/limit-model-calls.ts';
import type { ModelClient } from '../agent/model-client.ts';
import type { AgentSettings } from '../agent/run-agent.ts';
import type { Requester, RuntimeTool, ToolServer } from '../agent/tool.ts';
import type { DiscordSettings } from '../config.ts';
import type { ConversationMemory } from '../memory/conversation-memory.ts';
import { describeDiscordError, executeRun, toolsRunIn } from './execute-run.ts';
import { postingChannel } from './posting-channel.ts';
import type { RateLimitGate } from './rate-limit-gate.ts';
import type { UsageLimits } from './usage-limits.ts';
import { renderAnswer } from './render.ts';
import { piecesNotYetPosted, sendPieces, sendText } from './send.ts';

/** A run cut off this many times (itself and the runs it took up) is not taken up again. */
const maxTakeUps = 3;

/** Work waiting in a conversation's queue: a stored message to answer, or a run to take up again. */
export type QueuedWork =
  | { kind: 'message'; storedId: number; messageId: string; messageChannelId: string; requester: Requester }
  | { kind: 'resume'; run: RunRow };

export interface RunnerDependencies {
  client: Client<true>;
  store: Store;
  memory: ConversationMemory;
  /** With `admitting` (limitModelCalls), the daily budget is checked again when a run's first call has its turn. */
  model: ModelClient & Partial<Pick<LimitedModelClient, 'admitting'>>;
  /** The usage limits; none in tests that need none. */
  limits?: UsageLimits;
  tools: readonly RuntimeTool[];
  toolServers: readonly ToolServer[];
  agent: AgentSettings;
  discord: DiscordSettings;
  memoryBudget: number;
  operatorPrompt: string | null;
  instanceId: string;
  logger: Logger;
  gate: RateLimitGate;
  /** Fires at shutdown: runs stop, unposted, and are taken up at the next start. */
  shutdown: AbortSignal;
  /** The run in progress per conversation key, for `/stop`. */
  activeRuns: Map<string, AbortController>;
}

/** One plan for a run: what it answers, what it knows, and where its answer goes. */
export interface RunPlan {
  conversation: ConversationRow;
  channel: SendableChannels;
  history: ChatMessage[];
  input: UserMessage[];
  triggerIds: number[];
  requesters: Requester[];
  /** The message the answer replies to, if it is in the channel the answer goes to. */
  replyTo: string | null;
  resumedFrom: string | null;
  /** Tools the interrupted runs it takes up already called. */
  calledBefore: string[];
}

/** Handles a conversation's queued work: runs to take up again first, then the new messages as one batch. */
export async function handleWork(deps: RunnerDependencies, conversationKey: string, work: readonly QueuedWork[]): Promise<void> {
  if (deps.shutdown.aborted) return; // Stored already: answered after the next start.
  const conversation = deps.store.conversations.byKey(conversationKey);
  if (!conversation) return; // Purged (its thread was deleted) while the work waited.
  const channel = await postingChannel(deps.client, conversation, deps.logger);
  if (!channel) return;
  for (const item of work) {
    if (item.kind !== 'resume') continue;
    try {
      await resume(deps, conversation, channel, item.run);
    } catch (error) {
      // One run that cannot be taken up must not keep the others, or the new messages, waiting.
      deps.logger.error({ err: error, runId: item.run.id, conversation: conversation.key }, 'could not take up an interrupted run');
      deps.store.runs.markDelivered(item.run.id);
    }
  }
  const messages = work.filter((item) => item.kind === 'message');
  if (messages.length === 0) return;
  const triggerIds = messages.map((item) => item.storedId);
  const { history, input } = deps.memory.loadWindow(conversation.id, triggerIds);
  if (input.length === 0) return; // Every message of the batch was deleted while it waited.
  const last = messages.at(-1)!;
  await executeRun(deps, {
    conversation,
    channel,
    history,
    input,
    triggerIds,
    requesters: messages.map((item) => item.requester),
    replyTo: last.messageChannelId === channel.id ? last.messageId : null,
    resumedFrom: null,
    calledBefore: [],
  });
}

/**
 * Takes up a run a crash or a shutdown interrupted. An answer it had already reached (even one
 * recorded as answered but never confirmed posted) is posted unless the channel shows it was;
 * otherwise the model continues from the steps on disk: finished tool calls are in memory with
 * their results, unfinished ones read as interrupted.
 */
async function resume(deps: RunnerDependencies, conversation: ConversationRow, channel: SendableChannels, run: RunRow): Promise<void> {
  const triggerIds = JSON.parse(run.trigger_message_ids) as number[];
  const triggers = triggerIds.flatMap((id) => deps.store.messages.byId(id) ?? []);
  const lastTrigger = triggers.at(-1);
  const replyTo = lastTrigger?.discord_message_id && channel.id === conversation.thread_id ? lastTrigger.discord_message_id : null;
  const answered = deps.store.steps.ofRun(run.id).find((step) => step.kind === 'final-answer');
  if (answered?.result) {
    const text = renderAnswer(JSON.parse(answered.result));
    try {
      const missing = await piecesNotYetPosted(channel, text, lastTrigger?.discord_message_id ?? null, deps.client.user.id);
      await sendPieces(channel, missing, { replyTo, nonceSeed: `${run.id}:answer`, onSent: (id) => deps.store.runs.addPostedMessage(run.id, id) });
    } catch (error) {
      deps.logger.error({ err: error, runId: run.id, cause: describeDiscordError(error) }, 'could not post the answer of an interrupted run');
    }
    deps.store.runs.markAnswered(run.id);
    deps.store.runs.markDelivered(run.id);
    deps.logger.info({ runId: run.id, conversation: conversation.key }, 'interrupted run: its answer is posted');
    return;
  }
  if (triggers.length === 0) {
    deps.store.runs.markDelivered(run.id); // Its messages were deleted: nothing to answer.
    return;
  }
  if (runChain(deps, run).length >= maxTakeUps) {
    // Cut off again and again (a tool that brings the process down, say): stop trying.
    await sendText(channel, 'I could not finish answering this: I was interrupted several times. Please ask again.', {
      replyTo,
      nonceSeed: `${run.id}:given-up`,
    }).catch((error: unknown) => deps.logger.warn({ err: error, runId: run.id }, 'could not post the give-up notice'));
    deps.store.runs.markDelivered(run.id);
    deps.logger.warn({ runId: run.id, conversation: conversation.key }, 'interrupted run given up after several attempts');
    return;
  }
  const { history } = deps.memory.loadWindow(conversation.id, triggerIds, { resuming: true });
  deps.logger.info({ runId: run.id, conversation: conversation.key }, 'taking up an interrupted run');
  await executeRun(deps, {
    conversation,
    channel,
    history,
    input: [],
    triggerIds,
    requesters: triggers.map((row) => ({ id: row.author_id ?? 'unknown', displayName: row.author_name ?? 'someone', isModerator: false })),
    replyTo,
    resumedFrom: run.id,
    calledBefore: toolsCalledBy(deps, run),
  });
}

/** The tools a run, and the runs it took up in turn, ran (finished or not). */
function toolsCalledBy(deps: RunnerDependencies, run: RunRow): string[] {
  const names = new Set<string>();
  for (const current of runChain(deps, run)) for (const name of toolsRunIn(deps, current.id)) names.add(name);
  return [...names];
}

/** The run and those it took up in turn, newest first. */
function runChain(deps: RunnerDependencies, run: RunRow): RunRow[] {
  const chain: RunRow[] = [];
  for (let current: RunRow | undefined = run; current && chain.length < 20; current = current.resumed_from ? deps.store.runs.byId(current.resumed_from) : undefined) {
    chain.push(current);
  }
  return chain;
}
