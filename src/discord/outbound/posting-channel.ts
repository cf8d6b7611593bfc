import { type Client, RESTJSONErrorCodes, type SendableChannels } from 'discord.js';
import type { ConversationRow } from '../../../db/conversations.ts';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import { describeDiscordError, isDiscordCode } from '../discord-errors.ts';

/** Where a run's posts go, and the message its answer replies to there (null: not a reply). */
export interface PostTarget {
  channel: SendableChannels;
  replyTo: string | null;
}

/** A target known now, or once the thread it is in is made (a run starts while its thread is being made). */
export type TargetToBe = PostTarget | Promise<PostTarget>;

/** Where a conversation's posts go now, and its row as that leaves it. */
export interface PostingPlace {
  channel: SendableChannels;
  conversation: ConversationRow;
}

/**
 * Where a conversation's posts go: its thread, or its channel when no thread could be made. An
 * archived thread the bot owns is reopened; one it cannot post in (gone, or locked) is logged, with
 * the reason, and null is returned.
 *
 * A mention in a channel is stored before its thread is made (the thread takes the message's id),
 * and its run starts while the thread is being made: a crash in between leaves a conversation whose
 * thread never existed (its runs could post nothing: a thread deleted while the bot was down had
 * posts, and is purged when seen gone). Its thread is made now, and if that fails too, the answer
 * goes to the channel, as it would have then.
 */
export async function postingChannel(
  client: Client<true>,
  store: Pick<Store, 'conversations' | 'runs'>,
  conversation: ConversationRow,
  logger: Logger,
): Promise<PostingPlace | null> {
  const id = conversation.thread_id ?? conversation.channel_id;
  let missing = false;
  const channel = id
    ? await client.channels.fetch(id).catch((error: unknown) => {
        missing = isDiscordCode(error, [RESTJSONErrorCodes.UnknownChannel]);
        return null;
      })
    : null;
  if (!channel && missing && conversation.channel_id !== null && !store.runs.postedAny(conversation.id))
    return threadNeverMade(client, store, conversation, logger);
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
  return { channel, conversation };
}

/** Makes the thread a crash kept from being made, from the message that asked; else answers in the channel. */
async function threadNeverMade(
  client: Client<true>,
  store: Pick<Store, 'conversations' | 'runs'>,
  conversation: ConversationRow,
  logger: Logger,
): Promise<PostingPlace | null> {
  const parent = conversation.channel_id
    ? await client.channels.fetch(conversation.channel_id).catch(() => null)
    : null;
  if (!parent?.isSendable() || parent.isThread() || parent.isDMBased()) {
    logger.warn(
      { conversation: conversation.key, channelId: conversation.channel_id },
      'cannot post: the channel is gone',
    );
    return null;
  }
  try {
    const message = await parent.messages.fetch(conversation.thread_id!);
    const thread = await message.startThread({ name: conversation.title, autoArchiveDuration: 1440 });
    logger.info({ threadId: thread.id, channelId: parent.id }, 'conversation started (its thread was never made)');
    return { channel: thread, conversation };
  } catch (error) {
    logger.warn(
      { err: error, channelId: parent.id, cause: describeDiscordError(error) },
      'could not start a thread: answering in the channel',
    );
    return { channel: parent, conversation: store.conversations.setThread(conversation.id, null) };
  }
}
