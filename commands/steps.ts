import { ApplicationCommandOptionType, ChannelType, MessageFlags } from 'discord.js';
import { runStatusFilters } from '../db/server-runs.ts';
import { currentTools } from '../src/agent/tool-registry.ts';
import { finalAnswerToolName } from '../src/agent/final-answer.ts';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { isModerator } from '../src/discord/interactions/moderation.ts';
import { conversationHere, guildOnly, moderatorVisibility, privately } from './shared.ts';
import { showStepsOnPress } from './log-steps-button.ts';
import { showRunLog } from './step-report.ts';
import { listPage, onListComponent } from './steps-list.ts';
import { isNarrowed, queryOfOptions } from './steps-query.ts';

export const steps = defineCommand({
  name: 'steps',
  moderatorOnly: true,
  data: (setup) => ({
    name: 'steps',
    description: "Moderators: the server's runs (this thread's, in a thread), or one run's whole step log.",
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'run',
        description: 'A run id (its first characters are enough).',
        required: false,
      },
      { type: ApplicationCommandOptionType.User, name: 'user', description: 'Runs this person asked for.' },
      {
        type: ApplicationCommandOptionType.Channel,
        name: 'channel',
        description: 'Runs in this channel (and its threads) or thread.',
        channel_types: [
          ChannelType.GuildText,
          ChannelType.GuildAnnouncement,
          ChannelType.GuildForum,
          ChannelType.PublicThread,
          ChannelType.PrivateThread,
          ChannelType.AnnouncementThread,
        ],
      },
      {
        type: ApplicationCommandOptionType.String,
        name: 'tool',
        description: 'Runs that called this tool.',
        autocomplete: true,
        max_length: 64,
      },
      {
        type: ApplicationCommandOptionType.String,
        name: 'status',
        description: 'Runs that failed, were refused by a limit, were stopped, or whose answer was reported.',
        choices: runStatusFilters.map((status) => ({ name: status, value: status })),
      },
      {
        type: ApplicationCommandOptionType.String,
        name: 'since',
        description: 'Since a span back (2h, 3d) or a date (2026-11-20).',
      },
    ],
    ...moderatorVisibility(setup),
    ...guildOnly,
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const conversation = conversationHere(interaction, context);
    const runId = interaction.options.getString('run');
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    if (runId) {
      const [run, ...others] = context.store.runs.byId(runId)
        ? [context.store.runs.byId(runId)!]
        : context.store.runs.byPrefix(runId);
      const owner = run ? context.store.conversations.byId(run.conversation_id) : undefined;
      // A run of another server is not shown here, nor one of a channel where this person is no moderator.
      if (!run || others.length > 0 || owner?.guild_id !== interaction.guildId)
        return privately(interaction, `No single run of this server has an id starting with "${runId}".`);
      const where =
        interaction.guild.channels.cache.get(owner.thread_id ?? owner.channel_id ?? '') ??
        interaction.guild.channels.cache.get(owner.channel_id ?? '') ??
        null;
      if (!isModerator(interaction.member, where, context.moderatorRoleIds))
        return privately(interaction, 'You are not a moderator where that run took place.');
      return showRunLog(interaction, context, run, owner);
    }
    const query = queryOfOptions(interaction);
    if (typeof query === 'string') return privately(interaction, query);
    // In a conversation's thread, no filter means this thread's runs (as /steps always showed there).
    if (conversation && !isNarrowed(query)) query.channelId = interaction.channelId;
    await interaction.editReply(listPage(context, interaction.guild, interaction.member, query));
  },
  async autocomplete(interaction, context) {
    const typed = interaction.options.getFocused().toLowerCase();
    const names = currentTools(context.tools, context.toolServers)
      .map((tool) => tool.name)
      .filter((name) => name !== finalAnswerToolName && name.toLowerCase().includes(typed));
    await interaction.respond(names.slice(0, 25).map((name) => ({ name, value: name })));
  },
  // A log card's "Steps" button (`steps:run:<id>`), or the pages and menu of a /steps list.
  component: (interaction, context) =>
    interaction.customId.startsWith('steps:run:')
      ? showStepsOnPress(interaction, context)
      : onListComponent(interaction, context),
});
