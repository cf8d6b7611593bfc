import type { ConversationRow } from '../../db/conversations.ts';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';
import type { QueuedWork } from './conversation-runner.ts';
import type { ThreadQueues } from './thread-queue.ts';

/** Conversations with a message in this window are caught up on at start-up. */
export const catchUpDays = 7;
const maxConversations = 200;

/** The Discord conversations worth catching up on. */
export function recentConversations(store: Store): ConversationRow[] {
  return store.conversations.recentDiscord(Date.now() - catchUpDays * 86_400_000, maxConversations);
}

/**
 * Queues, per conversation and in order, what the last process left undone: runs it was in the
 * middle of (or had ended without posting), then messages it had stored but no run took. Reads
 * the database only, in one go, before any new message is handled, so nothing new can hide them.
 */
export function queueUnfinishedWork(store: Store, queues: ThreadQueues<QueuedWork>, conversations: readonly ConversationRow[]): { resumed: number; pending: number } {
  const counts = { resumed: 0, pending: 0 };
  for (const conversation of conversations) {
    for (const run of store.runs.toResume(conversation.id)) {
      queues.push(conversation.key, { kind: 'resume', run });
      counts.resumed += 1;
    }
    for (const row of store.messages.userMessagesAfter(conversation.id, store.runs.latestTrigger(conversation.id))) {
      if (!row.discord_message_id) continue;
      // A thread's first message lives in its parent channel.
      const inThread = conversation.thread_id !== null && row.discord_message_id !== conversation.thread_id;
      queues.push(conversation.key, {
        kind: 'message',
        storedId: row.id,
        messageId: row.discord_message_id,
        messageChannelId: (inThread ? conversation.thread_id : conversation.channel_id) ?? '',
        // Not known to be a moderator without a fresh look at their roles: the safe default.
        requester: { id: row.author_id ?? 'unknown', displayName: row.author_name ?? 'someone', isModerator: false },
      });
      counts.pending += 1;
    }
  }
  return counts;
}

/** Catches up on every recent conversation's thread; logs what it found. */
export async function catchUpAll(conversations: readonly ConversationRow[], catchUp: (conversation: ConversationRow) => Promise<number>, logger: Logger): Promise<number> {
  const results = await Promise.all(
    conversations.map((conversation) =>
      catchUp(conversation).catch((error: unknown) => {
        logger.warn({ err: error, conversation: conversation.key }, 'could not catch up on a thread');
        return 0;
      }),
    ),
  );
  return results.reduce((sum, count) => sum + count, 0);
}
