/**
 * A Discord message as a document of the server's knowledge: its text (headings kept, as Markdown)
 * and the text of its attachments, one document under one source, keyed by the message
 * (`message:<channelId>/<messageId>`) so that its edit replaces it and its deletion removes it
 * (knowledge-sync.ts). The jump link is its link back; its author is kept, for `/forget-me`.
 * Comes from: "Add to knowledge" (commands/add-to-knowledge.ts), `/knowledge add-pins`.
 */
import { cleanContent, type Message } from 'discord.js';
import type { ExtractedDocument, KnowledgeSection } from '../../knowledge/extract-text.ts';
import { extractText, isRefusal } from '../../knowledge/extract-text.ts';
import type { KnowledgeSource } from '../../knowledge/knowledge-base.ts';
import { truncateLine } from '../../text/truncate.ts';
import { embedsText, forwardsOf } from '../inbound/forwarded-message.ts';
import { looksLikeImage } from '../inbound/incoming-images.ts';
import { type KnowledgeIntake, readAttachment } from './knowledge-intake.ts';

/** The key of a message's document: the same for each of its versions. */
export const messageSourceKey = (channelId: string, messageId: string) => `message:${channelId}/${messageId}`;

/** The channel (or thread) of a message's document, from its key; null for another source. */
export function messageChannelOf(sourceKey: string): string | null {
  return /^message:(\d+)\//.exec(sourceKey)?.[1] ?? null;
}

/** The source of a message: its key, a title naming its author and channel, its jump link. */
export function messageSource(message: Message<true>): KnowledgeSource {
  const author = message.member?.displayName ?? message.author.displayName;
  const where = 'name' in message.channel ? ` in #${message.channel.name}` : '';
  return {
    kind: 'message',
    key: messageSourceKey(message.channelId, message.id),
    title: truncateLine(`Message by ${author}${where}`, 100),
    link: message.url,
  };
}

/** What a message brings, or a message it forwards (its snapshot): text, embeds, files. */
type MessagePart = Pick<Message, 'content' | 'attachments' | 'embeds'>;

/**
 * The message's text and its attachments' as one document (with what it forwards, if it is a
 * forward: its own text is empty), and what was left out (each a sentence).
 */
export async function messageDocument(
  message: Message<true>,
  intake: KnowledgeIntake,
): Promise<{ document: ExtractedDocument; refusals: string[] }> {
  const parts: MessagePart[] = [message, ...forwardsOf(message).map(({ snapshot }) => snapshot)];
  const sections: KnowledgeSection[] = [];
  const refusals: string[] = [];
  for (const part of parts) {
    const read = await partSections(part, message, intake);
    sections.push(...read.sections);
    refusals.push(...read.refusals);
  }
  return { document: { title: messageSource(message).title, sections }, refusals };
}

/** One part's text (its headings kept, as Markdown) and its files' sections, each under the file's name. */
async function partSections(
  part: MessagePart,
  message: Message<true>,
  intake: KnowledgeIntake,
): Promise<{ sections: KnowledgeSection[]; refusals: string[] }> {
  const sections: KnowledgeSection[] = [];
  const refusals: string[] = [];
  const text = [cleanContent(part.content ?? '', message.channel), embedsText(part.embeds ?? [])]
    .filter(Boolean)
    .join('\n\n');
  if (text.trim()) {
    const bytes = new TextEncoder().encode(text);
    const read = await extractText({
      bytes,
      name: 'message.md',
      contentType: 'text/markdown',
      maxBytes: intake.maxBytes,
    });
    if (isRefusal(read)) refusals.push(read.message);
    else sections.push(...read.sections);
  }
  for (const file of part.attachments.values()) {
    // An image holds no text to search: said, not fetched.
    if (looksLikeImage(file)) {
      refusals.push(`${truncateLine(file.name, 100)} is an image: I take no text from images.`);
      continue;
    }
    const read = await readAttachment(file, intake);
    if (isRefusal(read)) refusals.push(read.message);
    // Each of the file's parts under its name, so that a passage says where it came from.
    else sections.push(...read.document.sections.map((section) => underFile(file.name, section)));
  }
  return { sections, refusals };
}

function underFile(name: string, section: KnowledgeSection): KnowledgeSection {
  return { ...section, heading: section.heading ? `${name} › ${section.heading}` : name };
}
