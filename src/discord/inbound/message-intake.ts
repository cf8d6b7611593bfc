/**
 * Taking a message in: reading it (text attachments, images), storing it in the conversation's
 * memory with its images, telling its author about images not taken, and the work to queue.
 */
import type { Client, Message, OmitPartialGroupDMChannel } from 'discord.js';
import type { ConversationRow } from '../../../db/conversations.ts';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import type { DiscordSettings } from '../../settings/config-shape.ts';
import { type MessageWork, messageWork } from '../../conversation/queued-work.ts';
import type { ConversationMemory } from '../../memory/conversation-memory.ts';
import { tellAboutImages } from './image-notices.ts';
import type { ImageIntake } from './incoming-images.ts';
import { type MessageReading, readMessage } from './incoming-message.ts';
import { discordRequester } from '../interactions/moderation.ts';

/** A message posted in a server (not a DM). */
export type GuildMessage = OmitPartialGroupDMChannel<Message<true>>;

/** A message sent to the bot in a direct-message channel (src/discord/inbound/direct-messages.ts). */
export type DirectMessage = OmitPartialGroupDMChannel<Message<false>>;

/** A message the router takes in: in a server, or in a DM. */
export type RoutedMessage = GuildMessage | DirectMessage;

/** What taking a message in needs (a part of the router's dependencies). */
export interface IntakeDependencies {
  client: Client<true>;
  store: Store;
  memory: ConversationMemory;
  discord: DiscordSettings;
  images: ImageIntake;
  seesImagesIn?: (conversation: ConversationRow) => boolean;
  logger: Logger;
}

/** How messages are read and stored, for the router. */
export function messageIntake(deps: IntakeDependencies) {
  const { client, store, memory, discord, logger } = deps;
  // A DM has no server, so no managed role of the bot to mention.
  const botRoleId = (message: RoutedMessage) =>
    message.inGuild() ? (message.guild.roles.botRoleFor(client.user)?.id ?? null) : null;
  const reading = (message: RoutedMessage): MessageReading => ({
    botUserId: client.user.id,
    botRoleId: botRoleId(message),
    maxBytes: discord.attachmentMaxBytes,
    images: deps.images,
  });
  // In a DM nobody is a moderator: there is no server whose permissions could say so.
  const requesterOf = (message: RoutedMessage) =>
    message.inGuild()
      ? discordRequester(message.author, message.member, message.channel, discord.moderatorRoleIds)
      : discordRequester(message.author, null, null, discord.moderatorRoleIds);

  /** Stores the message (null if it already was: the gateway can deliver an event twice). */
  const record = async (message: RoutedMessage, conversation: ConversationRow): Promise<MessageWork | null> => {
    const { content, images } = await readMessage(message, reading(message));
    const requester = requesterOf(message);
    await memory.ready();
    const storedId = memory.recordUserMessage(conversation, {
      authorId: message.author.id,
      authorName: requester.displayName,
      content,
      discordMessageId: message.id,
      images: images.images,
    });
    if (storedId === null) return null;
    await tellAboutImages(message, conversation.id, images, {
      images: store.images,
      // Asked only when images were posted: it reads the place's settings.
      vision: () => deps.seesImagesIn?.(conversation) ?? deps.images.vision,
      logger,
    });
    if (message.channel.isThread() || !message.inGuild())
      store.conversations.setLastSeenMessage(conversation.id, message.id);
    return messageWork(storedId, { messageId: message.id, channelId: message.channelId }, requester);
  };
  return { botRoleId, reading, record };
}
