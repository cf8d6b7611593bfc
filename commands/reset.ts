import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { directConversationHere, guildAndDirectMessages, privately, steerableConversation } from './shared.ts';

export const reset = defineCommand({
  name: 'reset',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'reset',
    description: 'Make me forget this conversation so far (the log keeps it).',
    ...guildAndDirectMessages(setup),
  }),
  async execute(interaction, context) {
    const conversation = steerableConversation(interaction, context, 'reset it');
    if (typeof conversation === 'string') return privately(interaction, conversation);
    // A marker: older messages stay in the database and the step log, out of the memory window.
    context.store.conversations.resetMemory(conversation.id, context.store.messages.newestId(conversation.id));
    await interaction.reply({
      content: `${interaction.member.displayName} reset this conversation: I start afresh from here.`,
      allowedMentions: { parse: [] },
    });
  },
  async inDirectMessage(interaction, context) {
    const conversation = directConversationHere(interaction, context);
    if (typeof conversation === 'string') return privately(interaction, conversation);
    context.store.conversations.resetMemory(conversation.id, context.store.messages.newestId(conversation.id));
    await interaction.reply({ content: 'I start afresh from here: what we said before is out of my memory.' });
  },
});
