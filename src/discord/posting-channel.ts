import type { Client, SendableChannels } from 'discord.js';
import type { ConversationRow } from '../../db/conversations.ts';
import type { Logger } from '../agent/logger.ts';

/**
 * Where a conversation's posts go: its thread, or its channel when no thread could be made. An
 * archived thread the bot owns is reopened; one it cannot post in (gone, or locked) is logged, with
 * the reason, and null is returned.
 */
export async function postingChannel(
  client: Client<true>,
  conversation: ConversationRow,
  logger: Logger,
): Promise<SendableChannels | null> {
  const id = conversation.thread_id ?? conversation.channel_id;
  const channel = id ? await client.channels.fetch(id).catch(() => null) : null;
  if (!channel?.isSendable()) {
    logger.warn(
      { conversation: conversation.key, channelId: id },
      'cannot post: the thread or channel is gone or not a text channel',
    );
    return null;
  }
  // In a locked thread, archived or not, only those who may manage threads post: no run whose
  // answer could not be posted. Its messages stay stored, read with the next one answered.
  if (channel.isThread() && channel.locked && !channel.manageable) {
    logger.warn({ conversation: conversation.key, threadId: channel.id }, 'cannot post: the thread is locked');
    return null;
  }
  if (channel.isThread() && channel.archived && (channel.ownerId === client.user.id || channel.manageable)) {
    await channel
      .setArchived(false)
      .catch((error: unknown) =>
        logger.warn({ err: error, threadId: channel.id }, 'could not reopen the archived thread'),
      );
  }
  return channel;
}
