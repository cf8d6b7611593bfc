/**
 * `/settings log-channel`: where the bot posts its moderators' log (a card per run, settings
 * changes, and what went wrong), for the whole server; without a channel, logging stops. Also the
 * one way `/settings` records its changes, so that each one is logged with them.
 */
import {
  ApplicationCommandOptionType,
  ChannelType,
  PermissionFlagsBits,
  PermissionsBitField,
  type APIApplicationCommandSubcommandOption,
} from 'discord.js';
import type { NewSettingChange } from '../db/place-settings.ts';
import type { CommandContext, CommandInteraction } from '../src/discord/interactions/command-context.ts';
import { isServerModerator } from '../src/discord/interactions/moderation.ts';
import { changeBy } from '../src/discord/interactions/settings-place.ts';
import { logChannelOf, settingKeys } from '../src/place-settings/effective-settings.ts';
import { privately } from './shared.ts';

export const logChannelSubcommand: APIApplicationCommandSubcommandOption = {
  type: ApplicationCommandOptionType.Subcommand,
  name: 'log-channel',
  description: 'Where I log runs, failures and settings changes for moderators (whole server). Leave out: stop.',
  options: [
    {
      type: ApplicationCommandOptionType.Channel,
      name: 'channel',
      description: 'A text channel moderators read (leave out to stop logging).',
      channel_types: [ChannelType.GuildText],
    },
  ],
};

/**
 * Records setting changes and owes their card to the log channel, in one transaction: a change is
 * never on record without its card, nor logged without being made.
 */
export function applySettingChanges(
  context: Pick<CommandContext, 'store' | 'moderatorLog'>,
  changes: readonly NewSettingChange[],
): void {
  const [first] = changes;
  if (!first) return;
  context.store.db.transaction(() => {
    context.store.placeSettings.change(changes);
    context.moderatorLog.record(first.guildId, {
      kind: 'settings',
      by: { id: first.changedById, name: first.changedByName },
      changes: changes.map(({ scope, scopeId, key, value }) => ({ scope, scopeId, key, value })),
    });
  })();
}

/** Sets or clears the server's log channel: moderators of the whole server only. */
export async function setLogChannel(interaction: CommandInteraction, context: CommandContext): Promise<void> {
  if (!interaction.isChatInputCommand()) return;
  if (!isServerModerator(interaction.member, context.moderatorRoleIds))
    return privately(interaction, 'The log channel is for moderators of the whole server.');
  const channel = interaction.options.getChannel('channel');
  const before = logChannelOf(context.store.placeSettings, interaction.guildId);
  const target = { scope: 'server' as const, scopeId: interaction.guildId };
  // Its card goes to the new channel; clearing it stops logging, and what was still owed is dropped.
  applySettingChanges(context, [changeBy(interaction, target, settingKeys.logChannel, channel?.id ?? null)]);
  context.moderatorLog.channelChanged(interaction.guildId);
  if (!channel) return privately(interaction, before ? `I no longer log to <#${before}>.` : 'No log channel was set.');
  const missing = missingPermissions(interaction, channel.id);
  return privately(
    interaction,
    `I will log runs, failures and settings changes to <#${channel.id}>, a few cards per message. ` +
      (missing.length > 0
        ? `But I lack ${missing.join(', ')} there: give me ${missing.length === 1 ? 'it' : 'them'}, then set the channel again.`
        : 'If I cannot post there, `/settings show` says why.'),
  );
}

/** What the bot needs in the log channel: to see it, post in it, and show embeds (cards are embeds). */
const needed = {
  'View Channel': PermissionFlagsBits.ViewChannel,
  'Send Messages': PermissionFlagsBits.SendMessages,
  'Embed Links': PermissionFlagsBits.EmbedLinks,
};

/** The permissions the bot lacks in the channel, by name, as Discord computes them now (roles and overwrites). */
function missingPermissions(interaction: CommandInteraction, channelId: string): string[] {
  const channel = interaction.guild.channels.cache.get(channelId);
  const me = interaction.guild.members.me;
  const granted = channel && me ? channel.permissionsFor(me) : new PermissionsBitField();
  return Object.entries(needed).flatMap(([name, bit]) => (granted.has(bit) ? [] : [name]));
}

/** The log channel's line in `/settings show`: where, and why the bot cannot post there if it cannot. */
export function describeLogChannel(context: Pick<CommandContext, 'store' | 'moderatorLog'>, guildId: string): string {
  const channelId = logChannelOf(context.store.placeSettings, guildId);
  if (!channelId) return '- Log channel: none (`/settings log-channel` sets one)';
  const problem = context.moderatorLog.problem(guildId);
  return `- Log channel: <#${channelId}>${problem ? `\n  ⚠️ ${problem} Fix it, then set the channel again.` : ''}`;
}
