/**
 * "Add to knowledge" (a message context menu, for moderators): the message, its text and its
 * attachments, added to the server's knowledge as one document, kept in step with the message (an
 * edit replaces it, a deletion removes it: src/discord/knowledge/knowledge-sync.ts). Where it
 * applies follows who adds it: a moderator of the whole server adds it for the whole server; a
 * moderator of the message's channel only, for that channel.
 */
import { ApplicationCommandType, MessageFlags } from 'discord.js';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { isServerModerator } from '../src/discord/interactions/moderation.ts';
import { knowledgeScope, replaceRefusal } from '../src/discord/interactions/knowledge-scope.ts';
import { addMessage } from '../src/discord/knowledge/knowledge-additions.ts';
import { messageSource } from '../src/discord/knowledge/message-documents.ts';
import { noPings } from '../src/discord/outbound/send.ts';
import { guildOnly, moderatorVisibility, privately } from './shared.ts';

const name = 'Add to knowledge';

export const addToKnowledge = defineCommand({
  name,
  // Checked against the whole server, else the message's channel, below.
  moderatorOnly: false,
  data: (setup) => ({ name, type: ApplicationCommandType.Message, ...guildOnly, ...moderatorVisibility(setup) }),
  async execute(interaction, context) {
    if (!interaction.isMessageContextMenuCommand()) return;
    const message = interaction.targetMessage;
    const channel = interaction.channel;
    const placeChannelId = channel?.isThread() ? channel.parentId : (channel?.id ?? null);
    const scope = knowledgeScope(
      interaction,
      context.moderatorRoleIds,
      isServerModerator(interaction.member, context.moderatorRoleIds) ? null : placeChannelId,
    );
    if (typeof scope === 'string') return privately(interaction, 'Messages are added to my knowledge by moderators.');
    const refusal = replaceRefusal(
      interaction,
      context.moderatorRoleIds,
      context.knowledge.base,
      messageSource(message),
    );
    if (refusal !== null) return privately(interaction, refusal);
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const show = (line: string) => interaction.editReply({ content: line, allowedMentions: noPings });
    const outcome = await addMessage(message, scope.channelId, interaction.user.id, context.knowledge, show);
    await show(outcome.sentence);
  },
});
