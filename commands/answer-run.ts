import type { MessageContextMenuCommandInteraction } from 'discord.js';
import type { ConversationRow } from '../db/conversations.ts';
import type { RunRow } from '../db/runs.ts';
import { discordConversationKey } from '../src/conversation/conversation-keys.ts';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { conversationHere } from './shared.ts';

/**
 * The run that posted the message a context menu was used on (one of the bot's answers or tool
 * posts), with its conversation; undefined for any other message. In a thread, its conversation;
 * in a channel (no thread could be made), the conversation of the question it replies to.
 */
export function answerRunOf(
  interaction: MessageContextMenuCommandInteraction<'cached'>,
  context: CommandContext,
): { run: RunRow; conversation: ConversationRow } | undefined {
  const replyTo = interaction.targetMessage.reference?.messageId;
  const conversation =
    conversationHere(interaction, context) ??
    (replyTo ? context.store.conversations.byKey(discordConversationKey(replyTo)) : undefined);
  const run = conversation
    ? context.store.runs.byPostedMessage(conversation.id, interaction.targetMessage.id)
    : undefined;
  return run && conversation ? { run, conversation } : undefined;
}
