import type {
  AutocompleteInteraction,
  ChatInputCommandInteraction,
  MessageComponentInteraction,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
  RESTPostAPIApplicationCommandsJSONBody,
} from 'discord.js';
import type { RuntimeTool, ToolServer } from '../../agent/tool.ts';
import type { ModelListing } from '../../model-catalog/model-catalog.ts';
import type { BotServices } from '../bot-services.ts';
import type { ToolSubcommands } from './tool-options.ts';

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
  modelListings: readonly ModelListing[];
  /** ALLOW_DMS: the commands that work in DMs are offered there too. */
  allowDms?: boolean;
}

/** What a command may use when it runs: the bot's services (passed in, never hung on the client) and its setup. */
export type CommandContext = CommandSetup &
  Pick<
    BotServices,
    | 'client'
    | 'store'
    | 'memory'
    | 'counter'
    | 'queues'
    | 'activeRuns'
    | 'forgets'
    | 'lifecycle'
    | 'discord'
    | 'agent'
    | 'limits'
    | 'models'
    | 'instanceId'
    | 'logger'
    | 'moderatorLog'
    | 'contentChecks'
    | 'vision'
    | 'memorySettings'
    | 'shutdown'
    | 'gates'
  >;

/** One slash or context-menu command: its registered JSON, and what it does. */
export interface CommandDefinition {
  name: string;
  /** Checked against Discord permissions every time it runs; others get an ephemeral refusal. */
  moderatorOnly: boolean;
  data(setup: CommandSetup): RESTPostAPIApplicationCommandsJSONBody;
  execute(interaction: CommandInteraction, context: CommandContext): Promise<void>;
  /**
   * Runs the command in a DM with the bot (ALLOW_DMS=on): there is no server, no member and no
   * moderator there. A command without it is for servers only.
   */
  inDirectMessage?(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void>;
  /** Suggests values for an option marked `autocomplete` as the person types. */
  autocomplete?(interaction: AutocompleteInteraction<'cached'>, context: CommandContext): Promise<void>;
  /** Takes what was written in a box the command opened (its `custom_id` starts with the command's name and ":"). */
  modalSubmit?(interaction: ModalSubmitInteraction<'cached'>, context: CommandContext): Promise<void>;
  /** Takes a press on a button or menu the command posted (its `custom_id` starts with the command's name and ":"). */
  component?(interaction: MessageComponentInteraction<'cached'>, context: CommandContext): Promise<void>;
}

/** Types a command; does nothing at run time. */
export function defineCommand(definition: CommandDefinition): CommandDefinition {
  return definition;
}
