import { defineCommand } from '../src/discord/command-context.ts';
import { conversationHere, guildOnly, isModeratorIn, privately } from './shared.ts';

export const stop = defineCommand({
  name: 'stop',
  moderatorOnly: false,
  data: () => ({ name: 'stop', description: 'Stop my answer in progress in this thread.', ...guildOnly }),
  async execute(interaction, context) {
    const conversation = conversationHere(interaction, context);
    if (!conversation) return privately(interaction, 'This is not one of my conversations.');
    if (conversation.started_by_id !== interaction.user.id && !isModeratorIn(interaction, context)) {
      return privately(interaction, 'Only the person who started this conversation, or a moderator, can stop me here.');
    }
    const run = context.activeRuns.get(conversation.key);
    if (!run) return privately(interaction, 'I am not working on an answer here right now.');
    run.abort(new Error(`stopped by ${interaction.user.id}`));
    await privately(interaction, 'Stopped.');
  },
});
