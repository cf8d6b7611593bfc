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
import { embedsText } from '../inbound/forwarded-message.ts';
import { looksLikeImage } from '../inbound/incoming-images.ts';
import { type KnowledgeIntake, readAttachment } from './knowledge-intake.ts';

/** The key of a message's document: the same for each of its versions. */
export const messageSourceKey = (channelId: string, messageId: string) => `message:${channelId}/${messageId}`;

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

/** The message's text and its attachments' as one document, and the attachments refused (each a sentence). */
export async function messageDocument(
  message: Message<true>,
  intake: KnowledgeIntake,
): Promise<{ document: ExtractedDocument; refusals: string[] }> {
  const text = [cleanContent(message.content, message.channel), embedsText(message.embeds)]
    .filter(Boolean)
    .join('\n\n');
  const sections: KnowledgeSection[] = [];
  const refusals: string[] = [];
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
  for (const file of message.attachments.values()) {
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
  return { document: { title: messageSource(message).title, sections }, refusals };
}

function underFile(name: string, section: KnowledgeSection): KnowledgeSection {
  return { ...section, heading: section.heading ? `${name} › ${section.heading}` : name };
}
