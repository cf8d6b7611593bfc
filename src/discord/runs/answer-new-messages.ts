/**
 * The consumer of the conversation queues: `answerQueuedWork` is what a queued batch becomes. Comes
 * from: the inbound router (src/discord/inbound/message-router.ts) and the catch-up after a restart
 * (recovery.ts), which push a conversation's new messages and its cut-off runs. Does: resume the
 * cut-off runs first (resume-run.ts), then answer the new messages as one run: what applies in
 * their place, the seat before the model (before-model.ts), their memory window, where the posts
 * go. Goes to: run-in-discord.ts, which runs the plan.
 */
import type { SendableChannels } from 'discord.js';
import type { ConversationRow } from '../../../db/conversations.ts';
import type { MessageWork, QueuedWork } from '../../conversation/queued-work.ts';
import { placeChoice } from '../../place-settings/place-choice.ts';
import { type PostTarget, postingChannel, type TargetToBe } from '../outbound/posting-channel.ts';
import { beforeModel } from './before-model.ts';
import { answerWithRun, type DiscordRunPlan, describePlace, type PlanServices } from './run-in-discord.ts';
import { resumeCutOffRun } from './resume-run.ts';
import { offerToMarkSolved } from './forum-solved.ts';
import { isForumPost } from '../inbound/forum-posts.ts';

/** Handles a conversation's queued work: cut-off runs to resume first, then the new messages as one batch. */
export async function answerQueuedWork(
  deps: PlanServices,
  conversationKey: string,
  work: readonly QueuedWork[],
): Promise<void> {
  if (deps.shutdown.aborted) return; // Stored already: answered after the next start.
  await deps.memory.ready();
  const stored = deps.store.conversations.byKey(conversationKey);
  if (!stored) return; // Purged (its thread was deleted) while the work waited.
  const messages = work.filter((item) => item.kind === 'message');
  const resumes = work.filter((item) => item.kind === 'resume');
  const threadsMade = messages.flatMap((item) => item.placeReady ?? []);
  // A new conversation's run does not wait for its thread: only its posts do.
  if (resumes.length === 0 && threadsMade.length > 0)
    return answerNewMessages(
      deps,
      stored,
      messages,
      placeOfThreadToBe(deps, stored),
      threadReady(deps, stored, threadsMade, messages.at(-1)!),
    );
  await Promise.all(threadsMade);
  const place = await postingChannel(deps.client, deps.store, stored, deps.logger);
  if (!place) return;
  const { channel, conversation } = place;
  for (const { run } of resumes) {
    try {
      await resumeCutOffRun(deps, conversation, channel, run);
    } catch (error) {
      // One run that cannot be resumed must not keep the others, or the new messages, waiting.
      deps.logger.error(
        { err: error, runId: run.id, conversation: conversation.key },
        'could not take up an interrupted run',
      );
      deps.lifecycle.deliver(run.id, 'post-failed');
    }
  }
  const last = messages.at(-1);
  if (!last) return;
  const where = { place: describePlace(channel), channelId: channel.id };
  await answerNewMessages(deps, conversation, messages, where, { channel, replyTo: replyToIn(channel, last) });
}

/** Answers the new messages of a conversation as one batch, its posts going to `target`. */
async function answerNewMessages(
  deps: PlanServices,
  conversation: ConversationRow,
  messages: readonly MessageWork[],
  where: Pick<DiscordRunPlan, 'place' | 'channelId'>,
  target: TargetToBe,
): Promise<void> {
  const placed = placeChoice(deps, conversation);
  // A schedule's run posts for everyone: no member's facts in it (queued-work.ts `scheduled`).
  const choice = messages.some((work) => work.scheduled) ? { ...placed, memberMemory: false } : placed;
  const passed = await beforeModel(deps, { conversation, choice, messages, resumedFrom: null });
  if ('stop' in passed) return; // Each one flagged, or refused by the check's outage: told already.
  const triggerIds = passed.messages.map((item) => item.storedId);
  const window = deps.memory.loadWindow(conversation.id, triggerIds, choice.window);
  if (window.input.length === 0) return; // Every message of the batch was deleted while it waited.
  // A forum post's first answer offers "Mark solved" under it (forum-solved.ts).
  const firstInForum = targetIsForumPost(target) && !deps.store.runs.postedAny(conversation.id);
  const answered = await answerWithRun(deps, {
    conversation,
    choice,
    ...where,
    target,
    ...window,
    triggerIds,
    requesters: passed.messages.map((item) => item.requester),
    resumedFrom: null,
    calledBefore: [],
  });
  if (firstInForum && answered)
    await offerToMarkSolved((await target).channel, deps).catch((error: unknown) =>
      deps.logger.warn({ err: error, conversation: conversation.key }, 'could not offer to mark the post solved'),
    );
}

/** Whether the posts go to a forum post (known at once: a post is a thread that exists). */
function targetIsForumPost(target: TargetToBe): boolean {
  if (target instanceof Promise) return false; // A thread being made: never a forum post.
  return isForumPost(target.channel);
}

/** The answer replies to the last message it answers when that message is where the answer goes. */
function replyToIn(channel: SendableChannels, last: MessageWork): string | null {
  return last.messageChannelId === channel.id ? last.messageId : null;
}

/**
 * Where a new conversation's posts go once its thread is made: the thread, or the channel when it
 * could not be made. Rejects when there is nowhere to post (each post then fails and is logged).
 */
function threadReady(
  deps: PlanServices,
  conversation: ConversationRow,
  threadsMade: readonly Promise<void>[],
  last: MessageWork,
): Promise<PostTarget> {
  const target = Promise.all(threadsMade).then(async () => {
    const current = deps.store.conversations.byId(conversation.id) ?? conversation;
    const place = await postingChannel(deps.client, deps.store, current, deps.logger);
    if (!place) throw new Error('nowhere to post: the thread and its channel are gone');
    return { channel: place.channel, replyTo: replyToIn(place.channel, last) };
  });
  target.catch(() => {}); // Each post that waits for it reports the failure.
  return target;
}

/** A thread being made, as the model should know the place: its server and channel, and its name. */
function placeOfThreadToBe(
  deps: PlanServices,
  conversation: ConversationRow,
): Pick<DiscordRunPlan, 'place' | 'channelId'> {
  const parent = conversation.channel_id ? deps.client.channels.cache.get(conversation.channel_id) : undefined;
  const described = parent?.isSendable() ? describePlace(parent) : null;
  const inParent = described?.kind === 'discord' ? described : null;
  return {
    place: inParent
      ? { ...inParent, thread: conversation.title }
      : { kind: 'discord', server: 'unknown', channel: 'unknown', thread: conversation.title },
    channelId: conversation.thread_id,
  };
}
