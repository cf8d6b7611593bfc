import { cleanContent, type Attachment, type Collection, type Message } from 'discord.js';
import { formatSize } from '../../text/byte-size.ts';
import { othersWordsMarks } from '../../text/others-words.ts';
import { readFromCdn } from '../../web/cdn-fetch.ts';
import {
  type ImageIntake,
  type IncomingImages,
  isOnCdn,
  type PreviousImages,
  looksLikeImage,
  readIncomingImages,
} from './incoming-images.ts';
import { embedsText, forwardsOf } from './forwarded-message.ts';
import { forumPostTitle } from './forum-posts.ts';

/** Attachments read as text: by type, or by name where the type is missing or generic. */
const textTypes = /^(text\/|application\/(json|xml|x-yaml|yaml|toml|x-sh|javascript|typescript|sql|csv))/;
const textNames =
  /\.(txt|md|markdown|json|jsonl|csv|tsv|log|ya?ml|toml|ini|xml|html?|css|js|mjs|cjs|ts|tsx|jsx|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|sql|diff|patch)$/i;
const fetchTimeoutMs = 10_000;
const attachmentMark = othersWordsMarks.attachment;

/** How a message is read: who the bot is, the text attachments' limit, and how images are taken. */
export interface MessageReading {
  botUserId: string;
  botRoleId: string | null;
  /** The largest text attachment read (ATTACHMENT_MAX_KB). */
  maxBytes: number;
  images: ImageIntake;
}

/**
 * What the model gets of a message: its content with the bot's own mention removed and other
 * mentions as names, then its attachments: text files read (up to `maxBytes` each), images taken
 * (or named, with why not), others named so that the model knows they were not read. An edited
 * message's images already stored (`previous`) are kept, not fetched again.
 */
export async function readMessage(
  message: Message,
  reading: MessageReading,
  previous?: PreviousImages,
): Promise<{ content: string; images: IncomingImages }> {
  // A forum post's first message is read with the post's title: the two are its question.
  const title = forumPostTitle(message);
  const text = cleanText(message, reading.botUserId, reading.botRoleId);
  const own = await readParts(message, title ? `${title}\n\n${text}`.trim() : text, reading, previous);
  // A forward's own text is empty: what was forwarded is read as the message's content, marked so.
  const forwarded = await Promise.all(
    forwardsOf(message).map(async ({ snapshot, heading }) => {
      const text = cleanTextOf(snapshot.content ?? '', message, reading.botUserId, reading.botRoleId);
      const read = await readParts(snapshot, text, reading, previous);
      return {
        ...read,
        content: [heading, read.content, embedsText(snapshot.embeds ?? [])].filter(Boolean).join('\n'),
      };
    }),
  );
  const all = [own, ...forwarded];
  return {
    content: all
      .map((part) => part.content)
      .filter((part) => part !== '')
      .join('\n\n'),
    images: {
      images: all.flatMap((part) => part.images.images),
      notes: all.flatMap((part) => part.images.notes),
      refusals: all.flatMap((part) => part.images.refusals),
      posted: all.reduce((sum, part) => sum + part.images.posted, 0),
    },
  };
}

/** One message's text (already cleaned), attachments and images: its own, or a forwarded one's. */
async function readParts(
  source: Pick<Message, 'attachments' | 'content'>,
  text: string,
  reading: MessageReading,
  previous?: PreviousImages,
): Promise<{ content: string; images: IncomingImages }> {
  const [attachments, images] = await Promise.all([
    describeAttachments(source.attachments, reading.maxBytes, reading.images.origins),
    readIncomingImages(source, reading.images, previous),
  ]);
  const content = [text, ...attachments, images.notes.join('\n')].filter((part) => part !== '').join('\n\n');
  return { content, images };
}

/** The message's own text: the bot's mentions removed, other mentions shown as names. */
export function cleanText(message: Message, botUserId: string, botRoleId: string | null): string {
  return cleanTextOf(message.content, message, botUserId, botRoleId);
}

/** `content` as the model reads it in `message`'s channel: the bot's mentions removed, other mentions as names. */
function cleanTextOf(content: string, message: Message, botUserId: string, botRoleId: string | null): string {
  const withoutBot = content
    .replace(new RegExp(`<@!?${botUserId}>`, 'g'), '')
    .replace(botRoleId ? new RegExp(`<@&${botRoleId}>`, 'g') : /$^/, '');
  return cleanContent(withoutBot, message.channel).trim();
}

async function describeAttachments(
  attachments: Collection<string, Attachment>,
  maxBytes: number,
  origins: readonly string[],
): Promise<string[]> {
  return Promise.all(
    [...attachments.values()]
      .filter((attachment) => !looksLikeImage(attachment))
      .map(async (attachment) => {
        const label = `${attachment.name} (${attachment.contentType ?? 'unknown type'}, ${formatSize(attachment.size)})`;
        const isText = textTypes.test(attachment.contentType ?? '') || textNames.test(attachment.name);
        if (!isText) return `${attachmentMark}${label}: not read, only text files are.]`;
        if (attachment.size > maxBytes)
          return `${attachmentMark}${label}: not read, larger than ${formatSize(maxBytes)}.]`;
        if (!isOnCdn(attachment.url, origins)) return `${attachmentMark}${label}: not read, not on Discord's CDN.]`;
        try {
          const read = await readFromCdn(attachment.url, maxBytes, fetchTimeoutMs);
          if (!read.ok) return `${attachmentMark}${label}: could not be read (${read.why}).]`;
          // The size Discord reports is checked above; the body is cut again as it is read, in case it lied.
          const text = new TextDecoder('utf-8').decode(read.bytes);
          return `${attachmentMark}${attachment.name}]\n\`\`\`\n${text.replace(/```/g, 'ˋˋˋ')}\n\`\`\``;
        } catch {
          return `${attachmentMark}${label}: could not be read.]`;
        }
      }),
  );
}
