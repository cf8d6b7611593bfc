import {
  type APIApplicationCommandOptionChoice,
  type ChatInputCommandInteraction,
  ApplicationIntegrationType,
  InteractionContextType,
  PermissionFlagsBits,
} from 'discord.js';
import type { ConversationRow } from '../db/conversations.ts';
import type { CommandContext, CommandInteraction, CommandSetup } from '../src/discord/interactions/command-context.ts';
import { discordConversationKey } from '../src/conversation/conversation-keys.ts';
import { discordRequester, isModerator } from '../src/discord/interactions/moderation.ts';
import type { Requester } from '../src/agent/tool.ts';
import type { ModelListing } from '../src/model-catalog/model-catalog.ts';
import { truncateLine } from '../src/text/truncate.ts';

/** Every command lives in servers only. */
export const guildOnly = {
  contexts: [InteractionContextType.Guild],
  integration_types: [ApplicationIntegrationType.GuildInstall],
};

/**
 * A command that also works in DMs with the bot (its `inDirectMessage`): offered there when DMs are
 * on (ALLOW_DMS), for servers only otherwise. A server install's commands may be used in the bot's DM
 * (https://discord.com/developers/docs/interactions/application-commands#interaction-contexts).
 */
export function guildAndDirectMessages(setup: Pick<CommandSetup, 'allowDms'>) {
  return setup.allowDms
    ? { ...guildOnly, contexts: [InteractionContextType.Guild, InteractionContextType.BotDM] }
    : guildOnly;
}

/**
 * A command for a person that may also be installed to their own account (USER_INSTALL=on): offered
 * for both installation types, in every interaction context; `otherwise` when user install is off.
 * `integration_types`: 0 GUILD_INSTALL, 1 USER_INSTALL
 * (https://discord.com/developers/docs/resources/application#application-object-application-integration-types);
 * `contexts`: 0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL, PRIVATE_CHANNEL meaningful for user installs only
 * (https://discord.com/developers/docs/interactions/application-commands#interaction-contexts). Both
 * are read for global commands only: DISCORD_GUILD_ID's commands are server installs'
 * (https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-structure).
 */
export function personalCommand(
  setup: Pick<CommandSetup, 'userInstall'>,
  otherwise: { contexts: InteractionContextType[]; integration_types: ApplicationIntegrationType[] },
) {
  if (!setup.userInstall) return otherwise;
  return {
    contexts: [InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel],
    integration_types: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
  };
}

/**
 * Who sees a moderator command in the menu: without moderator roles, members who may manage
 * messages; with roles configured, left unset so role holders see it too (checked again on use).
 */
export function moderatorVisibility(setup: CommandSetup): { default_member_permissions: string | null } {
  return {
    default_member_permissions:
      setup.moderatorRoleIds.length === 0 ? PermissionFlagsBits.ManageMessages.toString() : null,
  };
}

export { replyPrivately as privately } from '../src/discord/outbound/reply-privately.ts';

/** The person who used the command, as the agent and its tools know them. */
export function requesterIn(
  interaction: CommandInteraction,
  context: Pick<CommandContext, 'moderatorRoleIds'>,
): Requester {
  return discordRequester(interaction.user, interaction.member, interaction.channel, context.moderatorRoleIds);
}

export function isModeratorIn(
  interaction: CommandInteraction,
  context: Pick<CommandContext, 'moderatorRoleIds'>,
): boolean {
  return isModerator(interaction.member, interaction.channel, context.moderatorRoleIds);
}

/** The conversation of the thread (or answered message) the command was used in, if any. */
export function conversationHere(
  interaction: CommandInteraction,
  context: CommandContext,
): ConversationRow | undefined {
  return interaction.channelId
    ? context.store.conversations.byKey(discordConversationKey(interaction.channelId))
    : undefined;
}

/**
 * The conversation here, if the person may steer it (its starter, or a moderator); otherwise the
 * sentence that says why not.
 */
export function steerableConversation(
  interaction: CommandInteraction,
  context: CommandContext,
  action: string,
): ConversationRow | string {
  const conversation = conversationHere(interaction, context);
  if (!conversation) return 'This is not one of my conversations.';
  if (conversation.started_by_id !== interaction.user.id && !isModeratorIn(interaction, context)) {
    return `Only the person who started this conversation, or a moderator, can ${action}.`;
  }
  return conversation;
}

/**
 * The DM conversation a command was used in (ALLOW_DMS), or the sentence that says there is none.
 * Only its one person writes there: no starter or moderator to check.
 */
export function directConversationHere(
  interaction: ChatInputCommandInteraction,
  context: Pick<CommandContext, 'store'>,
): ConversationRow | string {
  const conversation = context.store.conversations.byKey(discordConversationKey(interaction.channelId));
  return conversation && conversation.guild_id === null
    ? conversation
    : 'We have no conversation here yet: send me a message first.';
}

/** The choice that clears a model setting, so the place inherits it again (`/settings model`, `/model`). */
export const inheritChoice = 'inherit';

/** The models as command choices (at most 24: one choice is kept for "inherit"). */
export function modelChoices(models: readonly ModelListing[]): APIApplicationCommandOptionChoice<string>[] {
  return models.map((model) => ({
    name: truncateLine(model.description ? `${model.name}: ${model.description}` : model.name, 100),
    value: model.name,
  }));
}
