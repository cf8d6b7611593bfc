import type { MessageRow } from '../../db/messages.ts';
import type { RunRow } from '../../db/runs.ts';
import type { Requester } from '../agent/tool.ts';

/** Work waiting in a conversation's queue: a stored message to answer, or an owed run to resume. */
export type QueuedWork = MessageWork | { kind: 'resume'; run: RunRow };

/** A stored message to answer, and where it was posted (the answer replies to it when it can). */
export interface MessageWork {
  kind: 'message';
  storedId: number;
  messageId: string;
  messageChannelId: string;
  requester: Requester;
  /** Settles once the place its answer goes to exists (a thread still being made when it was queued). */
  placeReady?: Promise<void>;
  /**
   * Set for a schedule's prompt (`/schedule`): its run posts for everyone, so no member's remembered
   * facts go into it, nor does it remember any (issue 41's member memory is for a member's own runs).
   */
  scheduled?: true;
}

/** The one way work for a stored message is made. */
export function messageWork(
  storedId: number,
  posted: { messageId: string; channelId: string },
  requester: Requester,
): MessageWork {
  return { kind: 'message', storedId, messageId: posted.messageId, messageChannelId: posted.channelId, requester };
}

/**
 * Who wrote a stored message, read back from the database (catch-up after a restart, a run taken
 * up): not known to be a moderator without a fresh look at their roles, which is the safe default.
 */
export function storedRequester(row: Pick<MessageRow, 'author_id' | 'author_name'>): Requester {
  return { id: row.author_id ?? 'unknown', displayName: row.author_name ?? 'someone', isModerator: false };
}
