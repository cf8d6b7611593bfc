import {
  ApplicationCommandOptionType,
  type ChatInputCommandInteraction,
  MessageFlags,
  PermissionFlagsBits,
} from 'discord.js';
import { resolveSince } from '../src/catch-up/since.ts';
import { isAllowedPlace } from '../src/discord/inbound/allowed-places.ts';
import { type CommandContext, defineCommand } from '../src/discord/interactions/command-context.ts';
import { summarizeHere } from '../src/discord/catch-up/summarize-here.ts';
import { guildAndDirectMessages, privately } from './shared.ts';

/**
 * `/summarize [since:] [public:]`: a catch-up on the channel, thread, forum post or DM it is used
 * in. Only where the bot may hold conversations (ALLOWED_*), only for an asker who may read the
 * history there themselves (their permissions, not the bot's), within the asker's rate and the
 * place's daily budget. The work is src/discord/catch-up/summarize-here.ts.
 */
export const summarize = defineCommand({
  name: 'summarize',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'summarize',
    description: 'Catch up: a summary of what was said here, with links to the messages.',
    ...guildAndDirectMessages(setup),
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'since',
        description: 'A duration (2h, 1d, 1w) or a message link. Default: since your last message here, else 24 hours.',
      },
      {
        type: ApplicationCommandOptionType.Boolean,
        name: 'public',
        description: 'True: post it for everyone here. Default: only you see it.',
      },
    ],
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const channel = interaction.channel;
    if (!channel) return privately(interaction, 'I cannot read this channel.');
    const placeChannel = channel.isThread() ? channel.parentId : channel.id;
    // Never the content of a place the operator has not allowed (ALLOWED_GUILD_IDS, ALLOWED_CHANNEL_IDS).
    if (!isAllowedPlace(context.discord, interaction.guildId, placeChannel))
      return privately(interaction, 'I do not read this channel: the operator has not allowed me here.');
    // The asker's permissions, not the bot's: a summary shows nothing they could not scroll back to.
    const may = channel.permissionsFor(interaction.member);
    if (!may?.has([PermissionFlagsBits.ViewChannel, PermissionFlagsBits.ReadMessageHistory]))
      return privately(interaction, 'You cannot read the history of this channel, so I will not sum it up for you.');
    // Discord answers a bot without Read Message History with an empty page, not an error: said plainly instead.
    const botMay = channel.permissionsFor(interaction.client.user);
    if (!botMay?.has([PermissionFlagsBits.ViewChannel, PermissionFlagsBits.ReadMessageHistory]))
      return privately(
        interaction,
        'I may not read the history of this channel: a moderator can give me Read Message History here.',
      );
    await start(interaction, context, interaction.guildId);
  },
  /** In a DM with the bot (ALLOW_DMS): the asker's own conversation with it. */
  async inDirectMessage(interaction, context) {
    await start(interaction, context, null);
  },
});

/** `since:` read, the limits passed, the reply deferred (reading takes longer than Discord's 3 seconds), then the work. */
async function start(interaction: ChatInputCommandInteraction, context: CommandContext, guildId: string | null) {
  const channel = interaction.channel;
  if (!channel) return privately(interaction, 'I cannot read this channel.');
  const since = resolveSince(interaction.options.getString('since'), channel.id, Date.now());
  if (since.kind === 'refused') return privately(interaction, since.reason);
  // Each call counts as a message to the bot does: the asker's rate and the place's daily budget.
  const verdict = context.limits.check(interaction.user.id, guildId);
  if (!verdict.ok) return privately(interaction, verdict.message);
  const isPublic = interaction.options.getBoolean('public') === true;
  await interaction.deferReply(isPublic ? {} : { flags: MessageFlags.Ephemeral });
  await summarizeHere(interaction, context, { channel, guildId, since, isPublic });
}
