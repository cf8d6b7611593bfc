/**
 * "Ask about this message" (a message context menu, for everyone): a form asks the question
 * (optional), then a conversation thread starts in the message's channel, as `/ask` starts one,
 * with that message (its author, its link, its text, its attachments named) as the question's
 * context. Only where `/ask` works: a text or announcement channel the bot holds conversations in;
 * or, with USER_INSTALL, anywhere through a person's own install, answered in the form's reply.
 */
import {
  ApplicationCommandType,
  ChannelType,
  cleanContent,
  ComponentType,
  type Message,
  MessageFlags,
  TextInputStyle,
} from 'discord.js';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { isAllowedPlace } from '../src/discord/inbound/allowed-places.ts';
import { embedsText } from '../src/discord/inbound/forwarded-message.ts';
import { discordLink } from '../src/moderator-log/run-card.ts';
import { truncate } from '../src/text/truncate.ts';
import { startConversation } from './ask.ts';
import { guildOnly, personalCommand, privately } from './shared.ts';
import { userInstallServerId } from '../db/conversations.ts';
import { answerThroughInteraction } from '../src/discord/user-install/interaction-run.ts';

const name = 'Ask about this message';
const questionLimit = 1000;
/** What is asked when the form is left empty. */
const defaultQuestion = 'What does this message say, and what should I know about it?';

export const askAboutMessage = defineCommand({
  name,
  moderatorOnly: false,
  data: (setup) => ({ name, type: ApplicationCommandType.Message, ...personalCommand(setup, guildOnly) }),
  async execute(interaction, context) {
    if (!interaction.isMessageContextMenuCommand()) return;
    const channel = interaction.channel;
    if (!channel || (channel.type !== ChannelType.GuildText && channel.type !== ChannelType.GuildAnnouncement))
      return privately(interaction, 'Ask about a message of a text channel. In a thread of mine, reply to it instead.');
    if (!isAllowedPlace(context.discord, interaction.guildId, channel.id))
      return privately(interaction, 'I do not hold conversations in this channel.');
    await interaction.showModal(questionForm(interaction.targetMessage.id));
  },
  /**
   * Where no server added the bot (user install): the message comes with the interaction (Discord's
   * `resolved` data) and is kept for the form (`askedAbout`), since the bot can fetch nothing there.
   */
  async userInstalled(interaction, context) {
    if (!interaction.isMessageContextMenuCommand()) return;
    context.askedAbout.keep(interaction.user.id, interaction.targetMessage);
    await interaction.showModal(questionForm(interaction.targetMessage.id));
  },
  /** The form, where no server added the bot: the answer in its reply, about the message kept. */
  async userInstalledModalSubmit(interaction, context) {
    const messageId = interaction.customId.split(':')[1] ?? '';
    const about = context.askedAbout.take(interaction.user.id, messageId);
    if (!about)
      return privately(interaction, 'I no longer have that message: choose Ask about this message on it again.');
    const limited = context.limits.check(interaction.user.id, userInstallServerId);
    if (!limited.ok) return privately(interaction, limited.message);
    const question = interaction.fields.getTextInputValue('question').trim() || defaultQuestion;
    await interaction.deferReply();
    const link = discordLink(interaction.guildId ?? '@me', about.channelId, about.id);
    await answerThroughInteraction(context, interaction, {
      prompt: `${question}\n\n${describeMessage(about, link)}`,
      askerName: interaction.user.displayName,
    });
  },
  async modalSubmit(interaction, context) {
    const messageId = interaction.customId.split(':')[1] ?? '';
    const channel = interaction.channel;
    if (!channel || (channel.type !== ChannelType.GuildText && channel.type !== ChannelType.GuildAnnouncement))
      return privately(interaction, 'That message is not in a text channel any more.');
    const limited = context.limits.check(interaction.user.id, interaction.guildId);
    if (!limited.ok) return privately(interaction, limited.message);
    const about = await channel.messages.fetch(messageId).catch(() => null);
    if (!about) return privately(interaction, 'That message is gone: there is nothing to ask about.');
    const question = interaction.fields.getTextInputValue('question').trim() || defaultQuestion;
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const link = discordLink(interaction.guildId, channel.id, about.id);
    await startConversation(interaction, context, channel, {
      prompt: `${question}\n\n${describeMessage(about, link)}`,
      shown: `${question} (about ${link})`,
    });
  },
});

/** The form that asks the question about a message (its id in the form's custom id). */
function questionForm(messageId: string) {
  // https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-modal
  return {
    custom_id: `${name}:${messageId}`,
    title: 'Ask about this message',
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.TextInput,
            custom_id: 'question',
            label: 'Your question (optional)',
            style: TextInputStyle.Paragraph,
            required: false,
            max_length: questionLimit,
            placeholder: defaultQuestion,
          },
        ],
      },
    ],
  } as never;
}

/** The message as the question's context: who wrote it, its link, its text, embeds and attachments named. */
function describeMessage(message: Message, link: string): string {
  const author = message.member?.displayName ?? message.author.displayName;
  const files = [...message.attachments.values()].map((file) => `[attachment ${file.name}]`);
  // A channel the bot is not in is not known to the client: its mentions stay as Discord wrote them.
  const text = message.channel ? cleanContent(message.content, message.channel) : message.content;
  const parts = [text, embedsText(message.embeds), ...files].filter(Boolean);
  return truncate(`[The message asked about, by ${author} (${link})]\n${parts.join('\n')}`, 6_000);
}
