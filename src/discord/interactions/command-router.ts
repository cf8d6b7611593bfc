import {
  type ChatInputCommandInteraction,
  type Interaction,
  InteractionContextType,
  type MessageContextMenuCommandInteraction,
  type MessageComponentInteraction,
  MessageFlags,
  type ModalSubmitInteraction,
} from 'discord.js';
import { isModerator } from './moderation.ts';
import type { CommandContext, CommandDefinition, CommandInteraction } from './command-context.ts';
import { describeDiscordError } from '../discord-errors.ts';
import { replyPrivately } from '../outbound/reply-privately.ts';

/**
 * Routes a command to its definition. Moderator commands check Discord's permissions again each
 * time; any failure ends as an ephemeral message, never as "The application did not respond".
 */
export function commandRouter(commands: readonly CommandDefinition[], context: CommandContext) {
  const byName = new Map(commands.map((command) => [command.name, command]));
  return async (interaction: Interaction): Promise<void> => {
    if (interaction.isAutocomplete()) {
      const command = byName.get(interaction.commandName);
      if (!interaction.inCachedGuild() || !command?.autocomplete) {
        await interaction.respond([]);
        return;
      }
      try {
        await command.autocomplete(interaction, context);
      } catch (error) {
        context.logger.warn({ err: error, command: interaction.commandName }, 'suggesting values failed');
        if (!interaction.responded) await interaction.respond([]).catch(() => undefined);
      }
      return;
    }
    if (interaction.isModalSubmit() || interaction.isMessageComponent()) {
      const command = byName.get(interaction.customId.split(':')[0] ?? '');
      if (
        interaction.isModalSubmit() &&
        context.discord.userInstall === true &&
        isUserInstalledUse(interaction) &&
        command?.userInstalledModalSubmit
      )
        return runUserInstalled(interaction, command, context);
      if (!interaction.inCachedGuild() || !command) return;
      await routeSubmitted(interaction, command, context);
      return;
    }
    if (!interaction.isChatInputCommand() && !interaction.isMessageContextMenuCommand()) return;
    if (!interaction.inCachedGuild()) {
      const command = byName.get(interaction.commandName);
      const userInstalled =
        context.discord.userInstall === true && isUserInstalledUse(interaction) && command?.userInstalled
          ? command
          : null;
      // The bot's own DM (not a group DM or a DM between people, where a user install is used).
      const directMessage =
        interaction.isChatInputCommand() &&
        interaction.guildId === null &&
        interaction.context !== InteractionContextType.PrivateChannel &&
        command?.inDirectMessage !== undefined;
      if (directMessage && (context.discord.allowDms || !userInstalled))
        return runInDirectMessage(interaction, command, context);
      if (userInstalled) return runUserInstalled(interaction, userInstalled, context);
      if (interaction.isRepliable())
        await interaction.reply({
          content:
            context.discord.allowDms || context.discord.userInstall
              ? 'This command works in servers only.'
              : 'My commands work in servers only.',
          flags: MessageFlags.Ephemeral,
        });
      return;
    }
    const command = byName.get(interaction.commandName);
    const cached = interaction as CommandInteraction;
    try {
      if (!command) return await replyPrivately(cached, 'I do not know that command (any more).');
      if (command.moderatorOnly && !isModerator(cached.member, cached.channel, context.moderatorRoleIds)) {
        return await replyPrivately(cached, 'This command is for moderators.');
      }
      await command.execute(cached, context);
    } catch (error) {
      context.logger.error(
        { err: error, command: interaction.commandName, cause: describeDiscordError(error) },
        'a command failed',
      );
      await replyPrivately(
        cached,
        'Something went wrong with that command. The operator can find the cause in the logs.',
      ).catch((reportError: unknown) => context.logger.warn({ err: reportError }, 'could not report a failed command'));
    }
  };
}

/**
 * A submitted form (modal) or a press on a button or menu, to the command whose name starts its
 * custom id. Moderator commands are checked again: the box or list may have stayed open while a
 * role was taken away.
 */
async function routeSubmitted(
  interaction: ModalSubmitInteraction<'cached'> | MessageComponentInteraction<'cached'>,
  command: CommandDefinition,
  context: CommandContext,
): Promise<void> {
  const what = interaction.isModalSubmit() ? 'form' : 'button';
  const answer = (content: string) =>
    interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
  try {
    if (interaction.isModalSubmit() ? !command.modalSubmit : !command.component) return;
    if (command.moderatorOnly && !isModerator(interaction.member, interaction.channel, context.moderatorRoleIds))
      return void (await answer('This command is for moderators.'));
    if (interaction.isModalSubmit()) await command.modalSubmit!(interaction, context);
    else await command.component!(interaction, context);
  } catch (error) {
    context.logger.error(
      { err: error, command: command.name },
      interaction.isModalSubmit() ? 'a submitted form failed' : 'a pressed button failed',
    );
    if (!interaction.replied)
      await answer(`Something went wrong with that ${what}. The operator can find the cause in the logs.`).catch(
        () => undefined,
      );
  }
}

/**
 * Whether the person's own install of the app authorised the interaction (`authorizing_integration_owners`
 * holds "1", USER_INSTALL, with their id) where the bot is not in the server: then the bot may only
 * answer the interaction.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-authorizing-integration-owners-object
 */
function isUserInstalledUse(interaction: Interaction): boolean {
  return interaction.authorizingIntegrationOwners.userId !== null && !interaction.inCachedGuild();
}

/**
 * A command used through a user install where the bot is not in the place (USER_INSTALL): by its
 * `userInstalled`. No server, no member, no moderator there.
 */
async function runUserInstalled(
  interaction: ChatInputCommandInteraction | MessageContextMenuCommandInteraction | ModalSubmitInteraction,
  command: CommandDefinition,
  context: CommandContext,
): Promise<void> {
  try {
    if (interaction.isModalSubmit()) await command.userInstalledModalSubmit!(interaction, context);
    else await command.userInstalled!(interaction, context);
  } catch (error) {
    await reportFailure(interaction, command, context, error);
  }
}

/**
 * A command that failed outside a server of the bot's: logged, and the person told in its reply
 * (the deferred one, or a private one).
 */
async function reportFailure(
  interaction: ChatInputCommandInteraction | MessageContextMenuCommandInteraction | ModalSubmitInteraction,
  command: CommandDefinition,
  context: CommandContext,
  error: unknown,
): Promise<void> {
  context.logger.error({ err: error, command: command.name, cause: describeDiscordError(error) }, 'a command failed');
  const notice = 'Something went wrong with that command. The operator can find the cause in the logs.';
  await (
    interaction.replied || interaction.deferred
      ? interaction.editReply(notice)
      : interaction.reply({ content: notice, flags: MessageFlags.Ephemeral })
  ).catch((reportError: unknown) => context.logger.warn({ err: reportError }, 'could not report a failed command'));
}

/**
 * A command used in a DM with the bot: only with DMs on (ALLOW_DMS), by its `inDirectMessage`. There
 * is no member there, so no moderator: nothing a moderator may do is offered.
 */
async function runInDirectMessage(
  interaction: ChatInputCommandInteraction,
  command: CommandDefinition,
  context: CommandContext,
): Promise<void> {
  try {
    if (!context.discord.allowDms)
      return void (await interaction.reply({
        content: 'I take no direct messages here.',
        flags: MessageFlags.Ephemeral,
      }));
    await command.inDirectMessage!(interaction, context);
  } catch (error) {
    await reportFailure(interaction, command, context, error);
  }
}
