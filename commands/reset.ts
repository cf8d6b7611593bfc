import { defineCommand } from '../src/discord/command-context.ts';
import { conversationHere, guildOnly, isModeratorIn, privately } from './shared.ts';

export const reset = defineCommand({
  name: 'reset',
  moderatorOnly: false,
  data: () => ({ name: 'reset', description: 'Make me forget this thread so far (the log keeps it).', ...guildOnly }),
  async execute(interaction, context) {
    const conversation = conversationHere(interaction, context);
    if (!conversation) return privately(interaction, 'This is not one of my conversations.');
    if (conversation.started_by_id !== interaction.user.id && !isModeratorIn(interaction, context)) {
      return privately(interaction, 'Only the person who started this conversation, or a moderator, can reset it.');
    }
    // A marker: older messages stay in the database and the step log, out of the memory window.
    context.store.conversations.resetMemory(conversation.id, context.store.messages.newestId(conversation.id));
    await interaction.reply({ content: `${interaction.member.displayName} reset this conversation: I start afresh from here.`, allowedMentions: { parse: [] } });
  },
});
