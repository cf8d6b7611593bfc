import { type Channel, PermissionFlagsBits } from 'discord.js';
import type { ChannelCursorRow } from '../../../db/channel-cursors.ts';
import type { ConversationRow } from '../../../db/conversations.ts';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import type { DiscordSettings } from '../../settings/config-shape.ts';
import type { ConversationQueues } from '../../conversation/conversation-queues.ts';
import { messageWork, type QueuedWork, storedRequester } from '../../conversation/queued-work.ts';
import type { RunLifecycle } from '../../conversation/run-lifecycle.ts';
import { isAllowedPlace, isMentionChannel } from './allowed-places.ts';
import type { MessageRouter } from './message-router.ts';

/** Conversations and channels with a message in this window are caught up on at start-up. */
const catchUpDays = 7;
const maxConversations = 200;
const maxChannels = 200;

/** The Discord conversations worth catching up on. */
export function recentConversations(store: Store): ConversationRow[] {
  return store.conversations.recentDiscord(Date.now() - catchUpDays * 86_400_000, maxConversations);
}

/** The channels whose mentions are worth catching up on. */
function recentChannels(store: Store): ChannelCursorRow[] {
  return store.channelCursors.recent(Date.now() - catchUpDays * 86_400_000, maxChannels);
}

/**
 * Where the bot starts watching: each of `channels` where it answers mentions (and may read the
 * history) that has no cursor yet gets one at its newest message as Discord reported it
 * (`last_message_id`), so that a mention posted while the bot is down is caught up on even where
 * it never handled a message (a new install, a quiet channel, one newly created or allowed). A
 * channel without messages gets its own id, older than any message in it. Older history is not
 * read back. Called when Discord describes the channels (each guild's GUILD_CREATE, at `ready`,
 * before discord.js hands on the messages it held back; CHANNEL_CREATE), while `lastMessageId` is
 * still Discord's.
 */
export function watchChannels(
  store: Store,
  settings: Pick<DiscordSettings, 'allowedGuildIds' | 'allowedChannelIds'>,
  logger: Logger,
  channels: Iterable<Channel>,
): void {
  const readable = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory;
  const starts = [...channels]
    .filter(isMentionChannel)
    .filter((channel) => isAllowedPlace(settings, channel.guildId, channel.id))
    // A channel it may not read would cost a refused request (403) at every start.
    .filter((channel) => channel.permissionsFor(channel.client.user)?.has(readable) === true)
    .map((channel) => ({
      channelId: channel.id,
      guildId: channel.guildId,
      messageId: channel.lastMessageId ?? channel.id,
    }));
  try {
    store.channelCursors.start(starts);
  } catch (error) {
    // Called from discord.js's event listeners: logged, never thrown into the gateway's handling.
    logger.error({ err: error, channels: starts.length }, 'could not note where to start watching channels');
  }
}

/**
 * Queues, per conversation and in order, what the last process left undone: the runs owed to
 * their people (interrupted, or ended but never delivered), then messages it had stored but no run
 * took. Reads the database only, in one go, before any new message is handled, so nothing new can
 * hide them.
 */
export function queueUnfinishedWork(
  store: Store,
  lifecycle: RunLifecycle,
  queues: ConversationQueues<QueuedWork>,
  conversations: readonly ConversationRow[],
): { resumed: number; pending: number } {
  const counts = { resumed: 0, pending: 0 };
  for (const conversation of conversations) {
    for (const run of lifecycle.owed(conversation.id)) {
      queues.push(conversation.key, { kind: 'resume', run });
      counts.resumed += 1;
    }
    for (const row of store.messages.userMessagesAfter(conversation.id, lifecycle.latestAnswered(conversation.id))) {
      if (!row.discord_message_id) continue;
      // A thread's first message lives in its parent channel.
      const inThread = conversation.thread_id !== null && row.discord_message_id !== conversation.thread_id;
      const channelId = (inThread ? conversation.thread_id : conversation.channel_id) ?? '';
      const work = messageWork(row.id, { messageId: row.discord_message_id, channelId }, storedRequester(row));
      // A schedule's prompt stays one (queued-work.ts `scheduled`): no member's facts in its run.
      queues.push(conversation.key, row.scheduled ? { ...work, scheduled: true } : work);
      counts.pending += 1;
    }
  }
  return counts;
}

/**
 * Reads back what was posted while the bot was away, in every recent conversation's thread and
 * every channel it answers mentions in (from its cursor), and handles it as if it had just arrived. Logs a place it
 * could not read and goes on. Returns how many messages were read.
 */
export async function catchUp(
  store: Store,
  router: MessageRouter,
  logger: Logger,
  conversations = recentConversations(store),
): Promise<number> {
  const count = (work: Promise<number>, fields: Record<string, unknown>, what: string) =>
    work.catch((error: unknown) => {
      logger.warn({ ...fields, err: error }, what);
      return 0;
    });
  const results = await Promise.all([
    ...conversations.map((conversation) =>
      count(router.catchUpThread(conversation), { conversation: conversation.key }, 'could not catch up on a thread'),
    ),
    ...recentChannels(store).map((cursor) =>
      count(router.catchUpChannel(cursor), { channelId: cursor.channel_id }, 'could not catch up on a channel'),
    ),
  ]);
  return results.reduce((sum, read) => sum + read, 0);
}
