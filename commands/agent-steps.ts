import { ApplicationCommandType, MessageFlags } from 'discord.js';
import { discordConversationKey } from '../src/conversation/conversation-keys.ts';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { conversationHere, guildOnly, moderatorVisibility, privately } from './shared.ts';
import { formatRunDetail, reportOf, showReport } from './step-report.ts';

/** The message context-menu command: on one of the bot's answers, opens the run behind it. */
export const agentSteps = defineCommand({
  name: 'Agent steps',
  moderatorOnly: true,
  data: (setup) => ({
    name: 'Agent steps',
    type: ApplicationCommandType.Message,
    ...moderatorVisibility(setup),
    ...guildOnly,
  }),
  async execute(interaction, context) {
    if (!interaction.isMessageContextMenuCommand()) return;
    // In a thread, its conversation; in a channel (no thread could be made), the question it replies to.
    const replyTo = interaction.targetMessage.reference?.messageId;
    const conversation =
      conversationHere(interaction, context) ??
      (replyTo ? context.store.conversations.byKey(discordConversationKey(replyTo)) : undefined);
    const run = conversation
      ? context.store.runs.byPostedMessage(conversation.id, interaction.targetMessage.id)
      : undefined;
    if (!run)
      return privately(interaction, 'That message is not one of my answers (or its run is no longer on record).');
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    await showReport(
      interaction,
      formatRunDetail(reportOf(context, run, conversation)),
      `run-${run.id.slice(0, 8)}.md`,
    );
  },
});
