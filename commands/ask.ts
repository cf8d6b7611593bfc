import {
  ApplicationCommandOptionType,
  ChannelType,
  MessageFlags,
  type ChatInputCommandInteraction,
  type ModalSubmitInteraction,
  type NewsChannel,
  type TextChannel,
} from 'discord.js';
import { discordRequester } from '../src/discord/interactions/moderation.ts';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { discordConversationKey } from '../src/conversation/conversation-keys.ts';
import { messageWork } from '../src/conversation/queued-work.ts';
import { isAllowedPlace } from '../src/discord/inbound/allowed-places.ts';
import { threadName } from '../src/posts/render.ts';
import { noPings } from '../src/discord/outbound/send.ts';
import { discordMessageLimit } from '../src/posts/split-message.ts';
import { truncate } from '../src/text/truncate.ts';
import { guildOnly, personalCommand, privately } from './shared.ts';
import { userInstallServerId } from '../db/conversations.ts';
import { answerThroughInteraction } from '../src/discord/user-install/interaction-run.ts';

export const ask = defineCommand({
  name: 'ask',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'ask',
    description: setup.userInstall
      ? 'Ask me: in a server of mine, a conversation in a new thread; elsewhere, my answer here.'
      : 'Start a conversation with me in a new thread.',
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'prompt',
        description: 'What you want to ask.',
        required: true,
        max_length: 4000,
      },
    ],
    ...personalCommand(setup, guildOnly),
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const channel = interaction.channel;
    if (!channel || (channel.type !== ChannelType.GuildText && channel.type !== ChannelType.GuildAnnouncement)) {
      return privately(interaction, 'Use /ask in a text channel. In a thread of mine, just write your message.');
    }
    if (!isAllowedPlace(context.discord, interaction.guildId, channel.id)) {
      return privately(interaction, 'I do not hold conversations in this channel.');
    }
    const limited = context.limits.check(interaction.user.id, interaction.guildId);
    if (!limited.ok) return privately(interaction, limited.message);
    const prompt = interaction.options.getString('prompt', true);
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    await startConversation(interaction, context, channel, { prompt, shown: prompt });
  },
  /**
   * Where no server added the bot (user install): the answer comes in this command's reply, public
   * where the place lets the app post publicly (Discord decides: docs/user-install.md). A follow-up
   * question is another /ask in the same place: the conversation remembers.
   */
  async userInstalled(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const limited = context.limits.check(interaction.user.id, userInstallServerId);
    if (!limited.ok) return privately(interaction, limited.message);
    await interaction.deferReply();
    await answerThroughInteraction(context, interaction, {
      prompt: interaction.options.getString('prompt', true),
      askerName: interaction.user.displayName,
    });
  },
});

/**
 * Starts a conversation thread in `channel` for the person behind `interaction` (deferred
 * already): `shown` is posted in it for everyone, the question the answer replies to; `prompt` is
 * what the model reads. Said to the person in the deferred reply. (`/ask`, "Ask about this message".)
 */
export async function startConversation(
  interaction: ChatInputCommandInteraction<'cached'> | ModalSubmitInteraction<'cached'>,
  context: CommandContext,
  channel: TextChannel | NewsChannel,
  question: { prompt: string; shown: string },
): Promise<void> {
  const name = interaction.member.displayName;
  const thread = await channel.threads.create({ name: threadName(question.shown, name), autoArchiveDuration: 1440 });
  // The question, shown in the thread for everyone, is the message the answer replies to.
  const shown = await thread.send({
    content: truncate(`**${name}** asked: ${question.shown}`, discordMessageLimit),
    allowedMentions: noPings,
  });
  const conversation = context.store.conversations.ensure({
    key: discordConversationKey(thread.id),
    title: thread.name,
    guildId: interaction.guildId,
    channelId: channel.id,
    threadId: thread.id,
    startedById: interaction.user.id,
    startedByName: name,
  });
  await context.memory.ready();
  const storedId = context.memory.recordUserMessage(conversation, {
    authorId: interaction.user.id,
    authorName: name,
    content: question.prompt,
    discordMessageId: shown.id,
  });
  if (storedId !== null)
    context.queues.push(
      conversation.key,
      messageWork(
        storedId,
        { messageId: shown.id, channelId: thread.id },
        discordRequester(interaction.user, interaction.member, channel, context.moderatorRoleIds),
      ),
    );
  await interaction.editReply({ content: `Started: <#${thread.id}>`, allowedMentions: noPings });
}
