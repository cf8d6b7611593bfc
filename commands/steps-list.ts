/**
 * `/steps` as a list of the server's runs, newest first, ten to a page: Previous / Next buttons
 * that only the person who asked may press, and a menu that opens one run's step log. Only runs
 * in the channels where that person is a moderator, checked again at every press.
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  channelMention,
  type Guild,
  type GuildMember,
  type InteractionReplyOptions,
  type MessageComponentInteraction,
  MessageFlags,
  StringSelectMenuBuilder,
  time,
  TimestampStyles,
  userMention,
} from 'discord.js';
import type { ServerRunRow } from '../db/server-runs.ts';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { isModerator } from '../src/discord/interactions/moderation.ts';
import { noPings } from '../src/discord/outbound/send.ts';
import { truncateLine } from '../src/text/truncate.ts';
import { runLine } from './run-lines.ts';
import { runLogMessage, summaryOf } from './step-report.ts';
import { openRunId, pageCustomId, queryOfPageId, type StepsQuery } from './steps-query.ts';

const pageSize = 10;

/** The channels (not threads: a thread's runs go with its channel) where the member is a moderator now. */
function moderatedChannelIds(guild: Guild, member: GuildMember, moderatorRoleIds: readonly string[]): string[] {
  return [...guild.channels.cache.values()]
    .filter((channel) => !channel.isThread() && isModerator(member, channel, moderatorRoleIds))
    .map((channel) => channel.id);
}

/** The filters in words, for the list's first line. */
function describeQuery(query: StepsQuery): string {
  const parts = [
    query.channelId ? `in ${channelMention(query.channelId)}` : 'in this server',
    query.userId ? `asked by ${userMention(query.userId)}` : null,
    query.tool ? `calling \`${query.tool}${query.toolPrefix ? '…' : ''}\`` : null,
    query.status ? query.status : null,
    query.since === null ? null : `since ${time(Math.floor(query.since / 1000), TimestampStyles.ShortDateTime)}`,
  ];
  return parts.filter((part) => part !== null).join(' · ');
}

function lineOf(context: CommandContext, row: ServerRunRow): string {
  const summary = summaryOf(context, row, context.store.conversations.byId(row.conversation_id));
  return runLine({ ...summary, reports: row.reports });
}

function controls(query: StepsQuery, runs: readonly ServerRunRow[], more: boolean) {
  const menu = new StringSelectMenuBuilder()
    .setCustomId(openRunId)
    .setPlaceholder('Open a run’s step log')
    .addOptions(
      runs.map((run) => ({
        label: `${run.id.slice(0, 8)} · ${run.status}`,
        description: truncateLine(run.title, 100),
        value: run.id,
      })),
    );
  const buttons = [
    new ButtonBuilder()
      .setCustomId(pageCustomId(query, Math.max(0, query.page - 1)))
      .setLabel('Previous')
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(query.page === 0),
    new ButtonBuilder()
      // Distinct from Previous's id even when both are disabled on the only page.
      .setCustomId(pageCustomId(query, query.page + 1))
      .setLabel('Next')
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(!more),
  ];
  return [
    new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(menu).toJSON(),
    new ActionRowBuilder<ButtonBuilder>().addComponents(buttons).toJSON(),
  ];
}

/** One page of the list, as a message. */
export function listPage(
  context: CommandContext,
  guild: Guild,
  member: GuildMember,
  query: StepsQuery,
): Pick<InteractionReplyOptions, 'content' | 'components' | 'allowedMentions'> {
  const channelIds = moderatedChannelIds(guild, member, context.moderatorRoleIds);
  const filter = { ...query, guildId: guild.id, channelIds };
  const { runs, more } = context.store.serverRuns.page(filter, query.page, pageSize);
  const head = `**Runs ${describeQuery(query)}** · page ${query.page + 1}`;
  if (runs.length === 0)
    return {
      content: `${head}\nNo runs ${query.page === 0 ? 'match' : 'left'}, in the channels where you are a moderator.`,
      components: [],
      allowedMentions: noPings,
    };
  const from = query.page * pageSize + 1;
  const range = runs.length === 1 ? `run ${from}` : `runs ${from}–${from + runs.length - 1}`;
  return {
    content: [`${head} (${range}${more ? ', more on the next' : ''})`, ...runs.map((run) => lineOf(context, run))].join(
      '\n',
    ),
    components: controls(query, runs, more),
    allowedMentions: noPings,
  };
}

/** A press on a list's button or menu: only by who asked, and only for runs they moderate now. */
export async function onListComponent(
  interaction: MessageComponentInteraction<'cached'>,
  context: CommandContext,
): Promise<void> {
  const private_ = (content: string) =>
    interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: noPings });
  // The list's message says who asked for it (Discord fills in who ran the command).
  if (interaction.message.interactionMetadata?.user.id !== interaction.user.id)
    return void (await private_('This list is not yours: use /steps to get your own.'));
  if (interaction.isStringSelectMenu() && interaction.customId === openRunId) {
    const run = context.store.runs.byId(interaction.values[0] ?? '');
    const conversation = run ? context.store.conversations.byId(run.conversation_id) : undefined;
    const channelIds = moderatedChannelIds(interaction.guild, interaction.member, context.moderatorRoleIds);
    if (!run || conversation?.guild_id !== interaction.guildId || !channelIds.includes(conversation.channel_id ?? ''))
      return void (await private_('That run is gone, or you are no longer a moderator where it took place.'));
    return void (await interaction.reply({
      ...runLogMessage(context, run, conversation),
      flags: MessageFlags.Ephemeral,
    }));
  }
  const query = queryOfPageId(interaction.customId);
  if (query === null) return void (await private_('This list is from an older version of the bot: use /steps again.'));
  await interaction.update(listPage(context, interaction.guild, interaction.member, query));
}
