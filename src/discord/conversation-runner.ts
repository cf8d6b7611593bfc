import type { AnyThreadChannel, Message } from 'discord.js';
import type { Store } from '../../db/store.ts';
import { fanOut } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';
import type { ModelClient } from '../agent/model-client.ts';
import { type AgentSettings, runAgent } from '../agent/run-agent.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import type { Requester, RuntimeTool } from '../agent/tool.ts';
import { toolsFor } from '../agent/tool-registry.ts';
import type { DiscordSettings } from '../config.ts';
import type { ConversationMemory } from '../memory/conversation-memory.ts';
import { logSink } from '../run-log/log-sink.ts';
import { renderAnswer } from './render.ts';
import { sendText } from './send.ts';
import { toolPostSink } from './tool-post-sink.ts';

/** A stored user message waiting for an answer in its thread. */
export interface QueuedMessage {
  storedId: number;
  message: Message;
  thread: AnyThreadChannel;
  requester: Requester;
}

export interface RunnerDependencies {
  store: Store;
  memory: ConversationMemory;
  model: ModelClient;
  tools: readonly RuntimeTool[];
  agent: AgentSettings;
  discord: DiscordSettings;
  operatorPrompt: string | null;
  instanceId: string;
  logger: Logger;
}

/** How often the typing indicator is renewed: it lasts about ten seconds. */
const typingRenewMs = 9_000;

/**
 * Answers a batch of messages in one thread: one run whose tool calls are posted as they finish,
 * then the answer (or why there is none) as a reply to the last message of the batch.
 */
export async function answerBatch(deps: RunnerDependencies, batch: readonly QueuedMessage[]): Promise<void> {
  const { thread } = batch[0]!;
  const last = batch.at(-1)!;
  const conversation = deps.store.conversations.byKey(`discord:${thread.id}`);
  if (!conversation) return; // The thread was deleted while the messages waited.
  const triggerIds = batch.map((item) => item.storedId);
  const { history, input } = deps.memory.loadWindow(conversation.id, triggerIds);
  if (input.length === 0) return; // Every message of the batch was deleted while it waited.
  const logger = deps.logger;
  let runId: string | null = null;
  // Each posted message is recorded as soon as it is sent, so a later failure loses no record.
  const recordPosted = (messageId: string) => {
    if (runId) deps.store.runs.addPostedMessage(runId, messageId);
  };
  const posts = toolPostSink(thread, deps.discord.toolPosts, logger, recordPosted);
  const participants = [...new Set([conversation.started_by_name, ...batch.map((item) => item.requester.displayName)].filter((name): name is string => !!name))];
  const typing = keepTyping(thread, logger);
  try {
    const result = await runAgent({
      model: deps.model,
      systemPrompt: buildSystemPrompt({
        operatorPrompt: deps.operatorPrompt,
        now: new Date(),
        place: { kind: 'discord', server: thread.guild.name, channel: thread.parent?.name ?? 'unknown', thread: thread.name },
        participants,
      }),
      history,
      input,
      tools: toolsFor(deps.tools, batch.map((item) => item.requester)),
      context: { conversationId: conversation.key, guildId: thread.guildId, channelId: thread.id, requester: last.requester, logger },
      settings: deps.agent,
      onEvent: fanOut(
        [
          (event) => {
            if (event.type === 'run-start') runId = event.runId;
          },
          logSink(logger, { threadId: thread.id }),
          ...deps.memory.runSinks(conversation.id, deps.instanceId, triggerIds),
          posts.sink,
        ],
        logger,
      ),
    });
    await posts.flush();
    typing.stop();
    const text = result.answer ? renderAnswer(result.answer) : (result.userMessage ?? 'No answer.');
    // A reply must be in the same channel: the message that started a thread is in its parent.
    const replyTo = last.message.channelId === thread.id ? last.message.id : null;
    await sendText(thread, text, { replyTo, nonceSeed: `${result.runId}:answer`, onSent: recordPosted });
  } finally {
    typing.stop();
  }
}

/** Shows "Bot is typing…" now, and again every few seconds until stopped. */
function keepTyping(thread: AnyThreadChannel, logger: Logger): { stop(): void } {
  const type = () => thread.sendTyping().catch((error: unknown) => logger.debug({ err: error, threadId: thread.id }, 'typing indicator failed'));
  void type();
  const timer = setInterval(type, typingRenewMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
