import type {
  AutocompleteInteraction,
  ChatInputCommandInteraction,
  Client,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
  RESTPostAPIApplicationCommandsJSONBody,
} from 'discord.js';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import type { AgentSettings } from '../../agent/run-agent.ts';
import type { RuntimeTool, ToolServer } from '../../agent/tool.ts';
import type { DiscordSettings } from '../../app/config-shape.ts';
import type { ConversationMemory } from '../../memory/conversation-memory.ts';
import type { TokenCounter } from '../../memory/token-counter.ts';
import type { ActiveRuns } from '../../conversation/active-runs.ts';
import type { ConversationQueues } from '../../conversation/conversation-queues.ts';
import type { QueuedWork } from '../../conversation/queued-work.ts';
import type { RunLifecycle } from '../../conversation/run-lifecycle.ts';
import type { ToolSubcommands } from './tool-options.ts';
import type { UsageLimits } from '../../conversation/usage-limits.ts';
import type { ModelCatalog, ModelListing } from '../../model-catalog/model-catalog.ts';

export type CommandInteraction = ChatInputCommandInteraction<'cached'> | MessageContextMenuCommandInteraction<'cached'>;

/** What commands are built from at start-up. */
export interface CommandSetup {
  /** The built-in tools. */
  tools: readonly RuntimeTool[];
  /** Servers whose tools come and go (MCP). */
  toolServers: readonly ToolServer[];
  toolSubcommands: ToolSubcommands;
  moderatorRoleIds: readonly string[];
  /** The models moderators may choose from (the choices of `/settings model` and `/model`). */
  models: readonly ModelListing[];
}

/** What a command may use when it runs: passed in, never hung on the client. */
export interface CommandContext extends CommandSetup {
  client: Client<true>;
  store: Store;
  memory: ConversationMemory;
  counter: TokenCounter;
  queues: ConversationQueues<QueuedWork>;
  /** Runs in progress, by conversation key: `/stop` stops them. */
  activeRuns: ActiveRuns;
  /** The runs' states and transitions (a `/tool` run is delivered once its result is posted). */
  lifecycle: RunLifecycle;
  discord: DiscordSettings;
  agent: AgentSettings;
  limits: UsageLimits;
  /** The models on offer, and the default. */
  modelCatalog: ModelCatalog;
  instanceId: string;
  logger: Logger;
}

/** One slash or context-menu command: its registered JSON, and what it does. */
export interface CommandDefinition {
  name: string;
  /** Checked against Discord permissions every time it runs; others get an ephemeral refusal. */
  moderatorOnly: boolean;
  data(setup: CommandSetup): RESTPostAPIApplicationCommandsJSONBody;
  execute(interaction: CommandInteraction, context: CommandContext): Promise<void>;
  /** Suggests values for an option marked `autocomplete` as the person types. */
  autocomplete?(interaction: AutocompleteInteraction<'cached'>, context: CommandContext): Promise<void>;
  /** Takes what was written in a box the command opened (its `custom_id` starts with the command's name and ":"). */
  modalSubmit?(interaction: ModalSubmitInteraction<'cached'>, context: CommandContext): Promise<void>;
}

/** Types a command; does nothing at run time. */
export function defineCommand(definition: CommandDefinition): CommandDefinition {
  return definition;
}
