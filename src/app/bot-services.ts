/**
 * The one place the bot's services are put together: from its parts (bot-dependencies.ts) and the
 * client once it is ready (src/discord/bot.ts calls this). Each service is made here once; the parts
 * go on as they are. A feature switched off is left out here, not asked at the bottom of its stage:
 * with MEMORY_SUMMARY=false the queues have no summary step at all.
 */
import { AskedAbout } from '../discord/user-install/asked-about.ts';
import { KeyedSerializer } from '../conversation/keyed-serializer.ts';
import type { Logger } from '../agent/logger.ts';
import type { ContentCheckSettings } from '../content-check/content-check-settings.ts';
import { contentChecks } from '../content-check/content-checks.ts';
import { ActiveRuns } from '../conversation/active-runs.ts';
import { ConversationQueues } from '../conversation/conversation-queues.ts';
import { summariseConversation } from '../conversation/conversation-summary.ts';
import { Forgets } from '../conversation/forgets.ts';
import type { QueuedWork } from '../conversation/queued-work.ts';
import { ModelGates } from '../conversation/rate-limit-gate.ts';
import { runLifecycle } from '../conversation/run-lifecycle.ts';
import { UsageLimits } from '../conversation/usage-limits.ts';
import type { BotParts, BotServices } from '../discord/bot-services.ts';
import { type ModeratorLog, startModeratorLog } from '../discord/moderator-log/moderator-log.ts';
import { answerQueuedWork } from '../discord/runs/answer-new-messages.ts';
import { ToolInputRequests } from '../discord/runs/input-requests.ts';
import { type DestructiveToolEvent, ToolConfirmations } from '../discord/runs/tool-confirmation.ts';
import { conversationMemory } from '../memory/conversation-memory.ts';
import { fromZodTool } from '../agent/runtime-tool.ts';
import { remember } from '../../tools/remember.ts';

/** What the services are built from besides the parts: the settings of services that need the client. */
export interface ServiceSettings {
  /** CONTENT_CHECK and its settings; off when not given. */
  contentCheck?: ContentCheckSettings;
  /** The least time between two posts to a log channel (1 s: Discord's pace for one channel; tests make it short). */
  logPaceMs?: number;
  /**
   * Told what each call of a tool that needed confirmation came to: who asked, and whether it was
   * confirmed (by whom), cancelled or not answered in time (tests; the log channel hears it anyway).
   */
  onDestructiveTool?: (event: DestructiveToolEvent) => void;
}

/** The services, built once the client is ready: every stage takes its part of them. */
export function buildBotServices(
  parts: BotParts,
  settings: ServiceSettings,
  client: BotServices['client'],
  shutdown: AbortSignal,
): BotServices {
  const { store, logger } = parts;
  const moderatorLog = startModeratorLog(client, {
    store,
    models: parts.models,
    logger,
    paceMs: settings.logPaceMs ?? 1000,
  });
  const activeRuns = new ActiveRuns();
  const services: BotServices = {
    ...parts,
    client,
    memory: conversationMemory(store, parts.counter, parts.memorySettings),
    lifecycle: runLifecycle(store, { settled: (runId) => moderatorLog.recordRun(runId) }),
    limits: new UsageLimits(store, parts.discord),
    // Its consumer takes these same services, made by the time the first work is queued.
    queues: conversationQueues(parts, () => services),
    interactionRuns: new KeyedSerializer(),
    askedAbout: new AskedAbout(),
    activeRuns,
    forgets: new Forgets(activeRuns),
    gates: new ModelGates(logger),
    moderatorLog,
    contentChecks: contentChecks(settings.contentCheck ?? { kind: 'off' }, {
      store,
      logger,
      onContentFlagged: (flag) => moderatorLog.recordFlag(flag),
    }),
    shutdown,
    confirmations: new ToolConfirmations(logger, parts.discord.moderatorRoleIds),
    inputRequests: new ToolInputRequests(logger),
    onDestructiveTool: logDestructiveTool(moderatorLog, settings.onDestructiveTool),
    memberMemory: {
      tool: fromZodTool(remember(store.memberFacts)),
      factsOf: (place, userId) => store.memberFacts.of(place, userId).map((row) => row.fact),
    },
  };
  reembedStaleKnowledge(parts);
  return services;
}

/**
 * Documents whose embeddings another model made (EMBEDDING_MODEL changed), or none (a failed
 * embedding), embedded again in the background from the start: searched by words meanwhile, and
 * said so in `/knowledge list`.
 */
function reembedStaleKnowledge({ knowledge }: Pick<BotParts, 'knowledge'>): void {
  void knowledge.base.reembedInBackground();
}

/**
 * One queue per conversation. Its consumer is the runs' first stage (answerQueuedWork); once a
 * conversation has nothing left to answer, the turns that fell out of its window are summed up,
 * unless MEMORY_SUMMARY=false, which leaves that step out.
 */
function conversationQueues(parts: BotParts, services: () => BotServices): ConversationQueues<QueuedWork> {
  const { logger, memorySettings } = parts;
  const summarise =
    memorySettings.summaries === false
      ? undefined
      : (conversationKey: string, newWork: AbortSignal) => summariseConversation(services(), conversationKey, newWork);
  return new ConversationQueues<QueuedWork>(
    (conversationKey, batch) => answerQueuedWork(services(), conversationKey, batch),
    (error, conversationKey) => queueFailed(logger, error, conversationKey),
    undefined,
    summarise,
  );
}

/** A conversation whose queued work failed past every handler: logged, and its queue goes on. */
function queueFailed(logger: Logger, error: unknown, conversationKey: string): void {
  logger.error({ err: error, conversation: conversationKey }, 'answering in a conversation failed');
}

/** What each destructive tool call came to, told to `also` (tests) and carded in its server's log channel. */
function logDestructiveTool(
  moderatorLog: ModeratorLog,
  also: ((event: DestructiveToolEvent) => void) | undefined,
): (event: DestructiveToolEvent) => void {
  return (event) => {
    also?.(event);
    if (event.guildId === null) return;
    const by = event.outcome.by ?? event.asker;
    moderatorLog.record(event.guildId, {
      kind: 'destructive',
      tool: event.tool,
      by: { id: by.id, name: by.displayName },
      outcome: event.outcome.decision,
      channelId: event.channelId,
      runId: event.runId,
    });
  };
}
