import type { Client, Message } from 'discord.js';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';
import type { QueuedWork } from './conversation-runner.ts';
import type { ThreadQueues } from './thread-queue.ts';

/** Conversations with a message in this window are caught up on at start-up. */
export const catchUpDays = 7;
const maxConversations = 200;

export interface RecoveryDependencies {
  client: Client<true>;
  store: Store;
  queues: ThreadQueues<QueuedWork>;
  /** Routes a message as if it had just arrived (stored once, then answered). */
  route: (message: Message) => Promise<void>;
  logger: Logger;
}

/**
 * Picks up where the last process left off, conversation by conversation, in order: runs it was in
 * the middle of, then messages it had stored but not answered, then messages posted in the thread
 * while it was down. Each lands in the conversation's queue, so they run one after the other.
 */
export async function recover(deps: RecoveryDependencies): Promise<{ resumed: number; pending: number; caughtUp: number }> {
  const { store, queues, logger } = deps;
  const counts = { resumed: 0, pending: 0, caughtUp: 0 };
  for (const conversation of store.conversations.recentDiscord(Date.now() - catchUpDays * 86_400_000, maxConversations)) {
    for (const run of store.runs.toResume(conversation.id)) {
      queues.push(conversation.key, { kind: 'resume', run });
      counts.resumed += 1;
    }
    for (const row of store.messages.userMessagesAfter(conversation.id, store.runs.latestTrigger(conversation.id))) {
      if (!row.discord_message_id) continue;
      // A thread's first message lives in its parent channel.
      const messageChannelId = row.discord_message_id === conversation.thread_id ? conversation.channel_id : (conversation.thread_id ?? conversation.channel_id);
      queues.push(conversation.key, {
        kind: 'message',
        storedId: row.id,
        messageId: row.discord_message_id,
        messageChannelId: messageChannelId ?? '',
        // Not known to be a moderator without a fresh look at their roles: the safe default.
        requester: { id: row.author_id ?? 'unknown', displayName: row.author_name ?? 'someone', isModerator: false },
      });
      counts.pending += 1;
    }
    if (!conversation.thread_id) continue;
    try {
      const thread = await deps.client.channels.fetch(conversation.thread_id);
      if (!thread?.isThread()) continue;
      const missed = await thread.messages.fetch({ after: conversation.last_seen_message_id ?? conversation.thread_id, limit: 100 });
      for (const message of [...missed.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))) {
        if (message.author.bot) continue;
        await deps.route(message);
        counts.caughtUp += 1;
      }
    } catch (error) {
      logger.warn({ err: error, conversation: conversation.key }, 'could not catch up on a thread');
    }
  }
  if (counts.resumed + counts.pending + counts.caughtUp > 0) logger.info(counts, 'caught up after downtime');
  return counts;
}
