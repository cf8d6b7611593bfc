/**
 * Messages added to a server's knowledge ("Add to knowledge", `/knowledge add-pins`) kept in step
 * with Discord: an edit replaces the message's document (its text and attachments read again), a
 * deletion (one message, or a bulk deletion) removes it, and a deleted channel or thread takes its
 * messages' documents and the documents kept for it (a channel's, its threads' too). Comes from: the inbound router's edits and
 * deletions (src/discord/inbound/message-router.ts).
 */
import { type Message, type PartialMessage, RESTJSONErrorCodes } from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import type { KnowledgeParts } from './knowledge-additions.ts';
import { addMessage } from './knowledge-additions.ts';
import { isDiscordCode } from '../discord-errors.ts';
import { messageChannelOf, messageSourceKey } from './message-documents.ts';

/** The message's document, if it was added to its server's knowledge. */
function documentOf(knowledge: KnowledgeParts, guildId: string, channelId: string, messageId: string) {
  return knowledge.base.documentOfSource(guildId, messageSourceKey(channelId, messageId));
}

/** Whether an update changed what the document was read from: the text or the files (not an embed Discord added to a link). */
function changedWords(before: Message | PartialMessage | null, message: Message): boolean {
  if (!before || before.partial) return true;
  const files = (of: Message) => [...of.attachments.keys()].join(',');
  return before.content !== message.content || files(before) !== files(message);
}

/** An edited message that is in its server's knowledge: read again, its document replaced (removed if nothing is left). */
export async function syncEditedMessage(
  knowledge: KnowledgeParts,
  message: Message | PartialMessage,
  before: Message | PartialMessage | null,
  logger: Logger,
): Promise<void> {
  if (!message.guildId) return;
  const document = documentOf(knowledge, message.guildId, message.channelId, message.id);
  if (!document) return;
  const full = message.partial ? await message.fetch().catch(() => null) : message;
  if (!full?.inGuild() || !changedWords(before, full)) return;
  const outcome = await addMessage(full, document.channelId, document.addedBy, knowledge, async () => undefined);
  // Not taken again (nothing left of it, or past a cap): the old words go, being the message's no longer.
  if (!outcome.added) knowledge.base.removeSource(full.guildId, document.source.key);
  logger.info(
    { guildId: full.guildId, documentId: document.id, replaced: outcome.added },
    'a message in the knowledge was edited',
  );
}

/** Deleted messages that were in their server's knowledge: their documents go. */
export function syncDeletedMessages(
  knowledge: KnowledgeParts,
  guildId: string,
  channelId: string,
  messageIds: readonly string[],
): void {
  for (const id of messageIds) knowledge.base.removeSource(guildId, messageSourceKey(channelId, id));
}

/**
 * A deleted channel or thread: the documents of its messages, and those kept for it, go. A
 * channel's deletion names its threads too (the first id is the channel's): Discord deletes them
 * with it and says nothing of them.
 */
export function syncDeletedChannel(knowledge: KnowledgeParts, guildId: string, channelIds: readonly string[]): void {
  const gone = new Set(channelIds);
  const prefixes = channelIds.map((id) => messageSourceKey(id, ''));
  for (const document of knowledge.base.list(guildId))
    if (
      (document.channelId !== null && gone.has(document.channelId)) ||
      prefixes.some((prefix) => document.source.key.startsWith(prefix))
    )
      knowledge.base.remove(guildId, document.id);
}

/** What syncThreadsGoneUnseen asks of discord.js's channels: what it holds, and Discord. */
interface KnownChannels {
  cache: { has(id: string): boolean };
  fetch(id: string): Promise<unknown>;
}

/**
 * After a channel's deletion: the documents of messages in threads discord.js did not hold (one
 * archived before the bot started and not seen since) go too when Discord no longer knows their
 * thread (Unknown Channel: it went with its parent). One request per such thread; any other answer
 * (the thread is there, or out of the bot's sight) keeps them.
 */
export async function syncThreadsGoneUnseen(
  knowledge: KnowledgeParts,
  channels: KnownChannels,
  guildId: string,
): Promise<void> {
  const unseen = new Map<string, number[]>();
  for (const document of knowledge.base.list(guildId)) {
    const channelId = messageChannelOf(document.source.key);
    if (channelId === null || channels.cache.has(channelId)) continue;
    unseen.set(channelId, [...(unseen.get(channelId) ?? []), document.id]);
  }
  for (const [channelId, documentIds] of unseen) {
    const gone = await channels.fetch(channelId).then(
      () => false,
      (error: unknown) => isDiscordCode(error, [RESTJSONErrorCodes.UnknownChannel]),
    );
    if (gone) for (const id of documentIds) knowledge.base.remove(guildId, id);
  }
}
