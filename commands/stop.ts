import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { guildOnly, privately, steerableConversation } from './shared.ts';

export const stop = defineCommand({
  name: 'stop',
  moderatorOnly: false,
  data: () => ({ name: 'stop', description: 'Stop my answer in progress in this thread.', ...guildOnly }),
  async execute(interaction, context) {
    const conversation = steerableConversation(interaction, context, 'stop me here');
    if (typeof conversation === 'string') return privately(interaction, conversation);
    const state = context.activeRuns.stateOf(conversation.key);
    if (!context.activeRuns.stop(conversation.key, `stopped by ${interaction.user.id}`)) {
      return privately(interaction, 'I am not working on an answer here right now.');
    }
    await privately(
      interaction,
      state === 'waiting' ? 'Stopped before it began: it was still waiting for its turn with the model.' : 'Stopped.',
    );
  },
});
