import { ApplicationCommandOptionType, MessageFlags } from 'discord.js';
import { countForget, type ForgetCounts, forgetMember, forgottenTitle } from '../db/forget-member.ts';
import {
  type CommandContext,
  type CommandInteraction,
  defineCommand,
} from '../src/discord/interactions/command-context.ts';
import { guildAndDirectMessages, personalCommand, privately } from './shared.ts';
import { userInstallServerId } from '../db/conversations.ts';
import { countOf } from '../src/text/count.ts';

/**
 * The counts in words, kind by kind (db/forget-member.ts says what each kind holds), and the runs
 * stopped before the delete (`stopped`, said only when there were some).
 */
function describeCounts(counts: ForgetCounts, stopped = 0): string {
  return [
    `- ${countOf(counts.messages, 'message')} you wrote, with ${countOf(counts.images, 'image')}`,
    ...(stopped > 0 ? [`- ${countOf(stopped, 'answer')} I was still writing for you, stopped first`] : []),
    ...(counts.toolCalls > 0 ? [`- ${countOf(counts.toolCalls, 'tool call')} you made with /tool`] : []),
    `- ${countOf(counts.runs, 'answer')} I gave them (${countOf(counts.answers, 'message')} in my memory, ${countOf(counts.steps, 'step')} in the step log)`,
    `- ${countOf(counts.reminders, 'reminder')}`,
    ...(counts.facts > 0 ? [`- ${countOf(counts.facts, 'fact')} you asked me to remember`] : []),
    ...(counts.schedules > 0 ? [`- ${countOf(counts.schedules, 'schedule')} you set (/schedule)`] : []),
    ...(counts.knowledgeDocuments > 0
      ? [`- ${countOf(counts.knowledgeDocuments, 'message')} of yours a moderator added to the server's knowledge`]
      : []),
    `- ${countOf(counts.reports, 'report')} you made of my answers`,
  ].join('\n');
}

/**
 * The threads the bot opened from the member's messages are named after their first words: renamed
 * to a neutral title. Only the bot's own threads (others' are their owner's to name). Returns how
 * many of the bot's could not be renamed (gone, archived and locked, or no permission).
 */
async function renameThreads(interaction: CommandInteraction, threadIds: readonly string[]): Promise<number> {
  let failed = 0;
  for (const id of threadIds) {
    const thread = await interaction.guild.channels.fetch(id).catch(() => null);
    if (!thread?.isThread() || thread.ownerId !== interaction.client.user.id) continue;
    await thread.setName(forgottenTitle).catch(() => failed++);
  }
  return failed;
}

const nothing = (counts: ForgetCounts) => Object.values(counts).every((count) => count === 0);

/**
 * Deletes what the bot keeps of the member in the server (null: their DMs), once their runs going
 * on there are stopped and settled: a run holds their words in its window, and would write its
 * calls and answer back, or post an answer quoting them, after the delete (ActiveRuns.forgetting).
 */
const forgetAfterTheirRuns = (context: CommandContext, guild: string | null, user: string) =>
  context.forgets.forgetting(guild, user, () => forgetMember(context.store.db, guild, user));

/** Every member's: what the bot keeps of them in this server, shown, then deleted on confirmation. */
export const forgetMe = defineCommand({
  name: 'forget-me',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'forget-me',
    description: 'See what I keep of yours in this server; with confirm, delete it for good.',
    ...personalCommand(setup, guildAndDirectMessages(setup)),
    options: [
      {
        type: ApplicationCommandOptionType.Boolean,
        name: 'confirm',
        description: 'True: delete it now (this cannot be undone). Without it I only show what I would delete.',
      },
    ],
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const { db } = context.store;
    const guild = interaction.guildId;
    const user = interaction.user.id;
    if (interaction.options.getBoolean('confirm') !== true) {
      const counts = countForget(db, guild, user);
      if (nothing(counts)) return privately(interaction, 'I keep nothing of yours in this server.');
      return privately(
        interaction,
        `In this server, /forget-me confirm: True would delete:\n${describeCounts(counts)}\nOthers' messages in the same threads stay. Nothing was deleted.`,
      );
    }
    // Renaming threads takes a request each: past Discord's 3 seconds for a first reply.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const {
      stopped,
      result: { counts, startedThreads },
    } = await forgetAfterTheirRuns(context, guild, user);
    // Moderators see that a forget happened (who, how much), never what was forgotten. Owed at once,
    // in the tick of the delete: renaming the threads below takes requests a crash could cut short.
    if (!nothing(counts))
      context.moderatorLog.record(guild, {
        kind: 'forget',
        member: { id: user, name: interaction.member.displayName },
        counts: { ...counts, ...(stopped > 0 ? { 'runs stopped': stopped } : {}) },
      });
    const unrenamed = await renameThreads(interaction, startedThreads);
    if (nothing(counts)) return privately(interaction, 'I kept nothing of yours in this server: nothing to delete.');
    await privately(
      interaction,
      [
        `Deleted for good, in this server:\n${describeCounts(counts, stopped)}`,
        ...(unrenamed > 0
          ? [
              `${countOf(unrenamed, 'thread')} you started still show your words as their name: I could not rename them.`,
            ]
          : []),
        'Your messages on Discord itself are yours to delete there.',
      ].join('\n'),
    );
  },
  /** In a DM: what the bot keeps of the person's direct messages with it (a server's is forgotten in that server). */
  async inDirectMessage(interaction, context) {
    const { db } = context.store;
    const user = interaction.user.id;
    if (interaction.options.getBoolean('confirm') !== true) {
      const counts = countForget(db, null, user);
      if (nothing(counts)) return privately(interaction, 'I keep nothing of our direct messages.');
      return privately(
        interaction,
        `Of our direct messages, /forget-me confirm: True would delete:\n${describeCounts(counts)}\nWhat I keep of you in a server is forgotten with /forget-me there. Nothing was deleted.`,
      );
    }
    // Stopping the runs first may take a few seconds: past Discord's 3 seconds for a first reply.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const {
      stopped,
      result: { counts },
    } = await forgetAfterTheirRuns(context, null, user);
    if (nothing(counts)) return privately(interaction, 'I kept nothing of our direct messages: nothing to delete.');
    await privately(
      interaction,
      `Deleted for good, of our direct messages:\n${describeCounts(counts, stopped)}\nYour messages on Discord itself are yours to delete there.`,
    );
  },
  /**
   * Through the person's own install, where no server added the bot: what it keeps of that use, in
   * every place together (`userInstallServerId`); a server's is forgotten with /forget-me there.
   */
  async userInstalled(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const user = interaction.user.id;
    const where = 'where you used me through your own install (outside servers that added me)';
    if (interaction.options.getBoolean('confirm') !== true) {
      const counts = countForget(context.store.db, userInstallServerId, user);
      if (nothing(counts)) return privately(interaction, `I keep nothing of yours ${where}.`);
      return privately(
        interaction,
        `Of what you asked me ${where}, /forget-me confirm: True would delete:\n${describeCounts(counts)}\nNothing was deleted.`,
      );
    }
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const {
      stopped,
      result: { counts },
    } = await forgetAfterTheirRuns(context, userInstallServerId, user);
    if (nothing(counts)) return privately(interaction, `I kept nothing of yours ${where}: nothing to delete.`);
    await privately(interaction, `Deleted for good, ${where}:\n${describeCounts(counts, stopped)}`);
  },
});
