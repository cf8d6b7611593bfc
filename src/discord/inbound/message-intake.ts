/**
 * Taking a message in: reading it (text attachments, images), storing it in the conversation's
 * memory with its images, telling its author about images not taken, and the work to queue.
 */
import type { Client, Message, OmitPartialGroupDMChannel } from 'discord.js';
import type { ConversationRow } from '../../../db/conversations.ts';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import type { DiscordSettings } from '../../app/config-shape.ts';
import { type MessageWork, messageWork } from '../../conversation/queued-work.ts';
import type { ConversationMemory } from '../../memory/conversation-memory.ts';
import { tellAboutImages } from './image-notices.ts';
import type { ImageIntake } from './incoming-images.ts';
import { type MessageReading, readMessage } from './incoming-message.ts';
import { discordRequester } from '../interactions/moderation.ts';

/** A message posted in a server (not a DM). */
export type GuildMessage = OmitPartialGroupDMChannel<Message<true>>;

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
  const botRoleId = (message: GuildMessage) => message.guild.roles.botRoleFor(client.user)?.id ?? null;
  const reading = (message: GuildMessage): MessageReading => ({
    botUserId: client.user.id,
    botRoleId: botRoleId(message),
    maxBytes: discord.attachmentMaxBytes,
    images: deps.images,
  });
  const requesterOf = (message: GuildMessage) =>
    discordRequester(message.author, message.member, message.channel, discord.moderatorRoleIds);

  /** Stores the message (null if it already was: the gateway can deliver an event twice). */
  const record = async (message: GuildMessage, conversation: ConversationRow): Promise<MessageWork | null> => {
    const { content, images } = await readMessage(message, reading(message));
    const requester = requesterOf(message);
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
    if (message.channel.isThread()) store.conversations.setLastSeenMessage(conversation.id, message.id);
    return messageWork(storedId, { messageId: message.id, channelId: message.channelId }, requester);
  };
  return { botRoleId, reading, record };
}
