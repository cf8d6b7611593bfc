import { ApplicationCommandType, ComponentType, MessageFlags, TextInputStyle } from 'discord.js';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { noPings } from '../src/discord/outbound/send.ts';
import { discordLink } from '../src/moderator-log/run-card.ts';
import { answerRunOf } from './answer-run.ts';
import { guildOnly, privately } from './shared.ts';

const reasonLimit = 1000;
const alreadyReported = 'You reported this answer already: the moderators have your report.';

/** The message context-menu command, for everyone: report one of the bot's answers to the moderators. */
export const reportAnswer = defineCommand({
  name: 'Report answer',
  moderatorOnly: false,
  data: () => ({ name: 'Report answer', type: ApplicationCommandType.Message, ...guildOnly }),
  async execute(interaction, context) {
    if (!interaction.isMessageContextMenuCommand()) return;
    const found = answerRunOf(interaction, context);
    if (!found || interaction.targetMessage.author.id !== interaction.client.user.id)
      return privately(interaction, 'Only my answers can be reported, and that message is not one of them.');
    if (context.store.answerReports.hasReported(interaction.targetMessage.id, interaction.user.id))
      return privately(interaction, alreadyReported);
    // https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-modal
    await interaction.showModal({
      custom_id: `Report answer:${found.run.id}:${interaction.targetMessage.id}`,
      title: 'Report this answer',
      components: [
        {
          type: ComponentType.ActionRow,
          components: [
            {
              type: ComponentType.TextInput,
              custom_id: 'reason',
              label: 'What is wrong with it? (optional)',
              style: TextInputStyle.Paragraph,
              required: false,
              max_length: reasonLimit,
            },
          ],
        },
      ],
    } as never);
  },
  async modalSubmit(interaction, context) {
    const [, runId, messageId] = interaction.customId.split(':');
    const run = context.store.runs.byId(runId ?? '');
    const conversation = run ? context.store.conversations.byId(run.conversation_id) : undefined;
    const posted = run ? (JSON.parse(run.posted_message_ids) as string[]) : [];
    const answer = (content: string) =>
      interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: noPings });
    // The run may have gone meanwhile (a /forget-me, the retention sweep).
    if (!run || !messageId || !posted.includes(messageId) || conversation?.guild_id !== interaction.guildId)
      return void (await answer('That answer is no longer on record: nothing was reported.'));
    const reason = interaction.fields.getTextInputValue('reason').trim();
    const report = context.store.answerReports.add({
      run_id: run.id,
      message_id: messageId,
      guild_id: interaction.guildId,
      reporter_id: interaction.user.id,
      reason: reason === '' ? null : reason.slice(0, reasonLimit),
    });
    if (!report) return void (await answer(alreadyReported));
    // Owed to the log channel at once, in the same tick as the report is stored (the outbox keeps it).
    context.moderatorLog.record(interaction.guildId, {
      kind: 'report',
      runId: run.id,
      reporter: { id: interaction.user.id, name: interaction.member.displayName },
      reason: report.reason,
      answerLink: discordLink(interaction.guildId, interaction.channelId ?? conversation.thread_id ?? '', messageId),
    });
    await answer('Thank you: your report reached the moderators. Only you can see this message.');
    context.logger.info({ runId: run.id, reportId: report.id }, 'an answer was reported');
  },
});
