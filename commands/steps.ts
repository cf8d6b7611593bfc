import { ApplicationCommandOptionType, MessageFlags } from 'discord.js';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { isModerator } from '../src/discord/interactions/moderation.ts';
import { conversationHere, guildOnly, moderatorVisibility, privately } from './shared.ts';
import { formatRunDetail, reportOf, runsTable, showReport } from './step-report.ts';
import { showStepsOnPress } from './log-steps-button.ts';

export const steps = defineCommand({
  name: 'steps',
  moderatorOnly: true,
  data: (setup) => ({
    name: 'steps',
    description: "Moderators: this thread's recent runs, or one run's whole step log.",
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'run',
        description: 'A run id (its first characters are enough).',
        required: false,
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
      return showReport(interaction, formatRunDetail(reportOf(context, run, owner)), `run-${run.id.slice(0, 8)}.md`);
    }
    if (!conversation) return privately(interaction, 'Use /steps in a conversation thread, or give a run id.');
    await showReport(interaction, runsTable(context, conversation), `runs-${conversation.id}.md`);
  },
  // A log card's "Steps" button (custom id `steps:run:<id>`).
  component: showStepsOnPress,
});
