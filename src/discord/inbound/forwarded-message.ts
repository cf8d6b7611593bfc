/**
 * A forwarded message. Discord sends it with empty text of its own: what was forwarded comes in its
 * `message_snapshots` (the text, attachments and embeds of the message as it was), and where it
 * came from in its `message_reference`, of type FORWARD (1).
 * https://discord.com/developers/docs/resources/message#message-snapshot-object
 * https://discord.com/developers/docs/resources/message#message-reference-types
 * discord.js gives the snapshots as `message.messageSnapshots` (Message.js `_patch`).
 */
import { type APIEmbed, type Embed, type Message, type MessageSnapshot, MessageReferenceType } from 'discord.js';
import { othersWordsMarks } from '../../text/others-words.ts';
import { truncate } from '../../text/truncate.ts';

/** What one embed may bring of its text at most (Discord allows 6,000 characters in all of a message's embeds). */
const maxEmbedChars = 6_000;

/** Each message forwarded in `message`, with the line that marks it as forwarded and says from where. */
export function forwardsOf(message: Message): { snapshot: MessageSnapshot; heading: string }[] {
  const reference = message.reference;
  if (reference?.type !== MessageReferenceType.Forward) return [];
  const where =
    reference.messageId === undefined
      ? ''
      : `, from https://discord.com/channels/${reference.guildId ?? '@me'}/${reference.channelId}/${reference.messageId}`;
  return [...message.messageSnapshots.values()].map((snapshot) => ({
    snapshot,
    heading: `${othersWordsMarks.forwarded}${where}]`,
  }));
}

/** The text of a message's embeds (a link's preview, a bot's card): title, link, description, fields, footer. */
export function embedsText(embeds: readonly (Embed | APIEmbed)[]): string {
  return embeds
    .map((embed) => {
      const data = 'data' in embed ? embed.data : embed;
      const title = [data.author?.name, data.title].filter(Boolean).join(': ');
      const lines = [
        `${othersWordsMarks.embed}${title ? ` ${title}` : ''}${data.url ? ` (${data.url})` : ''}]`,
        data.description ?? '',
        ...(data.fields ?? []).map((field) => `${field.name}: ${field.value}`),
        data.footer?.text ?? '',
      ];
      return truncate(lines.filter(Boolean).join('\n'), maxEmbedChars);
    })
    .join('\n\n');
}
