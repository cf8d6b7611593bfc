/**
 * The services of a running bot, built once when it connects (src/app/bot-services.ts) and handed down
 * the stages: the inbound router, the queue's consumer (runs/answer-new-messages.ts), the runs, the commands.
 * Each module takes the part it needs (`Pick<BotServices, …>`) and never a copy with parts swapped:
 * what differs from place to place (model, persona, tools) is a value of its own, PlaceChoice
 * (src/place-settings/place-choice.ts).
 */
import type { Client } from 'discord.js';
import type { Store } from '../../db/store.ts';
import type { AgentEventSink } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';
import type { AgentSettings } from '../agent/run-agent.ts';
import type { RuntimeTool, ToolServer } from '../agent/tool.ts';
import type { DiscordSettings } from '../settings/config-shape.ts';
import type { ContentChecks } from '../content-check/content-checks.ts';
import type { ActiveRuns } from '../conversation/active-runs.ts';
import type { Forgets } from '../conversation/forgets.ts';
import type { ConversationQueues } from '../conversation/conversation-queues.ts';
import type { QueuedWork } from '../conversation/queued-work.ts';
import type { ModelGates } from '../conversation/rate-limit-gate.ts';
import type { KeyedSerializer } from '../conversation/keyed-serializer.ts';
import type { AskedAbout } from './user-install/asked-about.ts';
import type { RunLifecycle } from '../conversation/run-lifecycle.ts';
import type { UsageLimits } from '../conversation/usage-limits.ts';
import type { ConversationMemory, MemorySettings } from '../memory/conversation-memory.ts';
import type { MemberMemory } from '../conversation/member-facts.ts';
import type { TokenCounter } from '../memory/token-counter.ts';
import type { ModelCatalog } from '../model-catalog/model-catalog.ts';
import type { ModelVision } from '../place-settings/place-choice.ts';
import type { KnowledgeParts } from './knowledge/knowledge-additions.ts';
import type { ModeratorLog } from './moderator-log/moderator-log.ts';
import type { ToolInputRequests } from './runs/input-requests.ts';
import type { DestructiveToolEvent, ToolConfirmations } from './runs/tool-confirmation.ts';

/**
 * What the bot is made of before it connects, as the wiring gives it (src/app/bot-dependencies.ts):
 * handed on to every stage as it is, never copied field by field.
 */
export interface BotParts {
  store: Store;
  counter: TokenCounter;
  /** The models on offer (MODELS_FILE, else the one of the OPENAI_* settings) and the default. */
  models: ModelCatalog;
  /** What each model (by name) sees: images or none, and how it counts them. */
  vision: (modelName: string) => ModelVision;
  /** The built-in tools; `toolServers` are those whose tools come and go (MCP), listed anew for each run. */
  tools: readonly RuntimeTool[];
  toolServers: readonly ToolServer[];
  agent: AgentSettings;
  discord: DiscordSettings;
  memorySettings: MemorySettings;
  operatorPrompt: string | null;
  instanceId: string;
  logger: Logger;
  /** Sinks that hear every run's events besides the bot's own (the OpenTelemetry export, src/telemetry/). */
  runSinks: readonly AgentEventSink[];
  /** The servers' knowledge (`/knowledge`, `search_knowledge`), and how documents are taken into it. */
  knowledge: KnowledgeParts;
}

/** The services of a running bot: its parts, and what is built of them once the client is ready (src/app/bot-services.ts). */
export interface BotServices extends BotParts {
  /** The connected client (ready). */
  client: Client<true>;
  memory: ConversationMemory;
  /** The runs' states and transitions (src/conversation/run-lifecycle.ts). */
  lifecycle: RunLifecycle;
  /** The per-person message rate and the per-server daily token budget. */
  limits: UsageLimits;
  /** One queue per conversation; its consumer is `answerQueuedWork` (src/discord/runs/answer-new-messages.ts). */
  queues: ConversationQueues<QueuedWork>;
  /**
   * The runs answered through an interaction (USER_INSTALL, src/discord/user-install/): one at a time
   * per conversation, each with its own interaction to answer, so never batched as the queue does.
   */
  interactionRuns: KeyedSerializer;
  /** The messages "Ask about this message" was chosen on where no server added the bot, kept for their form. */
  askedAbout: AskedAbout;
  /** The runs going on, one per conversation at most: `/stop` finds them here. */
  activeRuns: ActiveRuns;
  /** The forgets going on: runs wait for them, they wait for the runs of their member (forgets.ts). */
  forgets: Forgets;
  /** One rate-limit gate per model. */
  gates: ModelGates;
  /**
   * The moderators' log channel of each server: `moderatorLog.record(guildId, entry)` owes it a card
   * (src/moderator-log/log-entry.ts has the kinds). Runs and /settings changes are recorded already.
   */
  moderatorLog: ModeratorLog;
  /** CONTENT_CHECK's checks of questions and answers; null when it is off (nothing is checked anywhere). */
  contentChecks: ContentChecks | null;
  /** Fires at shutdown: runs stop, unposted, and are resumed at the next start. */
  shutdown: AbortSignal;
  /** The Confirm / Cancel questions of destructive tool calls waiting for their asker. */
  confirmations: ToolConfirmations;
  /** The requests for input (MCP elicitation) of running tools, waiting for their asker. */
  inputRequests: ToolInputRequests;
  /** Hears what each destructive tool call came to (confirmed, cancelled, timed out). */
  onDestructiveTool?: (event: DestructiveToolEvent) => void;
  /** The `remember` tool and members' facts, for the runs of places where member memory is on. */
  memberMemory: MemberMemory;
}
