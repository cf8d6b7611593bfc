import { defineCommand } from '../src/discord/interactions/command-context.ts';
import type { ConversationRow } from '../db/conversations.ts';
import type { CommandContext, CommandInteraction } from '../src/discord/interactions/command-context.ts';
import type { ChatInputCommandInteraction } from 'discord.js';
import { catchUpRunKey, stoppedByAsker } from '../src/discord/catch-up/summarize-here.ts';
import { directConversationHere, guildAndDirectMessages, privately, steerableConversation } from './shared.ts';

/** Stops the asker's own /summarize in this channel, if one is going; whether it did. */
function stopCatchUp(interaction: ChatInputCommandInteraction, context: CommandContext): boolean {
  return context.activeRuns.stop(catchUpRunKey(interaction.channelId, interaction.user.id), stoppedByAsker);
}

/** Stops the conversation's run in progress, and says what became of it. */
async function stopIn(
  interaction: CommandInteraction | ChatInputCommandInteraction,
  context: CommandContext,
  conversation: ConversationRow,
): Promise<void> {
  const state = context.activeRuns.stateOf(conversation.key);
  if (!context.activeRuns.stop(conversation.key, `stopped by ${interaction.user.id}`)) {
    return privately(interaction, 'I am not working on an answer here right now.');
  }
  await privately(
    interaction,
    state === 'waiting' ? 'Stopped before it began: it was still waiting for its turn with the model.' : 'Stopped.',
  );
}

export const stop = defineCommand({
  name: 'stop',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'stop',
    description: 'Stop my answer in progress in this conversation.',
    ...guildAndDirectMessages(setup),
  }),
  async execute(interaction, context) {
    if (interaction.isChatInputCommand() && stopCatchUp(interaction, context))
      return privately(interaction, 'Stopped your /summarize here.');
    const conversation = steerableConversation(interaction, context, 'stop me here');
    if (typeof conversation === 'string') return privately(interaction, conversation);
    await stopIn(interaction, context, conversation);
  },
  async inDirectMessage(interaction, context) {
    if (stopCatchUp(interaction, context)) return privately(interaction, 'Stopped your /summarize here.');
    const conversation = directConversationHere(interaction, context);
    if (typeof conversation === 'string') return privately(interaction, conversation);
    await stopIn(interaction, context, conversation);
  },
});
