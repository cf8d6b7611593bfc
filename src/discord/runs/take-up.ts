/**
 * The consumer of the conversation queues: `takeUpWork` is what a queued batch becomes. Comes from:
 * the inbound router (src/discord/inbound/message-router.ts) and the catch-up after a restart
 * (recovery.ts), which push a conversation's new messages and its cut-off runs. Does: take up the
 * cut-off runs first (post the answer reached, give up, or continue), then plan one run for the new
 * messages (what applies in their place, their memory window, where the posts go). Goes to:
 * run-in-discord.ts, which runs the plan; post-answer.ts for an answer already reached.
 */
import type { SendableChannels } from 'discord.js';
import type { ConversationRow } from '../../../db/conversations.ts';
import type { MessageRow } from '../../../db/messages.ts';
import type { RunRow } from '../../../db/runs.ts';
import { type MessageWork, type QueuedWork, storedRequester } from '../../conversation/queued-work.ts';
import type { TakeUp } from '../../conversation/run-lifecycle.ts';
import { placeChoice } from '../../place-settings/place-choice.ts';
import type { BotServices } from '../bot-services.ts';
import { describeDiscordError } from '../discord-errors.ts';
import { messagesAfter } from '../inbound/messages-after.ts';
import { type PostTarget, postingChannel, type TargetToBe } from '../outbound/posting-channel.ts';
import { sendText } from '../outbound/send.ts';
import { LiveAnswer } from './live-answer.ts';
import { type AnswerPost, postAnswer } from './post-answer.ts';
import { checkQuestions } from './question-check.ts';
import { reachedAnswerText } from '../../content-check/answer-check.ts';
import { type DiscordRunPlan, describePlace, executeRun, type RunServices } from './run-in-discord.ts';

/** What taking up work uses of the bot's services. */
export type TakeUpServices = RunServices & Pick<BotServices, 'models' | 'vision' | 'memorySettings' | 'contentChecks'>;

/** Handles a conversation's queued work: runs to take up again first, then the new messages as one batch. */
export async function takeUpWork(
  deps: TakeUpServices,
  conversationKey: string,
  work: readonly QueuedWork[],
): Promise<void> {
  if (deps.shutdown.aborted) return; // Stored already: answered after the next start.
  await deps.memory.ready();
  const stored = deps.store.conversations.byKey(conversationKey);
  if (!stored) return; // Purged (its thread was deleted) while the work waited.
  const messages = work.filter((item) => item.kind === 'message');
  const takeUps = work.filter((item) => item.kind === 'take-up');
  const threadsMade = messages.flatMap((item) => item.placeReady ?? []);
  // A new conversation's run does not wait for its thread: only its posts do.
  if (takeUps.length === 0 && threadsMade.length > 0)
    return answer(
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
  for (const { run } of takeUps) {
    try {
      await takeUp(deps, conversation, channel, run);
    } catch (error) {
      // One run that cannot be taken up must not keep the others, or the new messages, waiting.
      deps.logger.error(
        { err: error, runId: run.id, conversation: conversation.key },
        'could not take up an interrupted run',
      );
      deps.lifecycle.deliver(run.id, 'post-failed');
    }
  }
  const last = messages.at(-1);
  if (!last) return;
  await answer(
    deps,
    conversation,
    messages,
    { place: describePlace(channel), channelId: channel.id },
    {
      channel,
      replyTo: replyToIn(channel, last),
    },
  );
}

/** Answers the new messages of a conversation as one batch, its posts going to `target`. */
async function answer(
  deps: TakeUpServices,
  conversation: ConversationRow,
  messages: readonly MessageWork[],
  where: Pick<DiscordRunPlan, 'place' | 'channelId'>,
  target: TargetToBe,
): Promise<void> {
  const choice = placeChoice(deps, conversation);
  const checked = await checkQuestions(deps, conversation, messages, choice.contentCheck);
  if (checked.length === 0) return; // Each one flagged, or refused by the check's outage: told already.
  const triggerIds = checked.map((item) => item.storedId);
  // A /forget-me going on in the place deletes what the window would read: loaded once it is done,
  // and the run begins in the same tick (what it reads is what a later forget stops).
  await deps.forgets.clearOf(conversation.guild_id);
  const window = deps.memory.loadWindow(conversation.id, triggerIds, choice.window);
  if (window.input.length === 0) return; // Every message of the batch was deleted while it waited.
  await executeRun(deps, {
    conversation,
    choice,
    ...where,
    target,
    ...window,
    triggerIds,
    requesters: checked.map((item) => item.requester),
    resumedFrom: null,
    calledBefore: [],
  });
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
  deps: TakeUpServices,
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
  deps: TakeUpServices,
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

/**
 * The message of a run's answer that Discord took from a process killed before it recorded the id:
 * the bot's message after the run's question with the text it was posting (`live_pending`).
 */
async function unrecordedLivePost(deps: TakeUpServices, channel: SendableChannels, run: RunRow): Promise<string[]> {
  if (run.live_pending === null) return [];
  const triggers = (JSON.parse(run.trigger_message_ids) as number[]).flatMap(
    (id) => deps.store.messages.byId(id) ?? [],
  );
  const after = triggers.at(-1)?.discord_message_id ?? '0';
  for await (const message of messagesAfter(channel, after, 5))
    if (message.author.id === deps.client.user.id && message.content === run.live_pending) return [message.id];
  return [];
}

/**
 * Takes up a run a crash or a shutdown cut off, as the run's lifecycle decides: post the answer it
 * had reached (unless the channel shows it was), give up, or let the model continue from the steps
 * on disk (finished tool calls are in memory with their results; unfinished ones read as interrupted).
 */
async function takeUp(
  deps: TakeUpServices,
  conversation: ConversationRow,
  channel: SendableChannels,
  run: RunRow,
): Promise<void> {
  const decision = deps.lifecycle.takeUp(run);
  const live = await cutOffLiveAnswer(deps, channel, run);
  // A run that continues it shows its answer in the same messages (STREAM_ANSWERS on); otherwise they go.
  const shownIn = decision.kind === 'continue' && deps.discord.streamAnswers ? (live?.messageIds ?? []) : [];
  if (decision.kind !== 'post-answer' && shownIn.length === 0) await live?.abandon();
  if (decision.kind === 'nothing-to-answer') return deps.lifecycle.deliver(run.id, 'nothing-to-answer');
  const triggers = decision.triggerIds.flatMap((id) => deps.store.messages.byId(id) ?? []);
  const lastTrigger = triggers.at(-1)?.discord_message_id ?? null;
  const replyTo = lastTrigger && channel.id === conversation.thread_id ? lastTrigger : null;
  const log = { runId: run.id, conversation: conversation.key };
  if (decision.kind === 'post-answer') {
    const where = { channel, replyTo, postedAfter: lastTrigger, live };
    await postAnswerReached(deps, conversation, { run, reached: decision, triggers }, where);
  } else if (decision.kind === 'give-up') {
    const text = 'I could not finish answering this: I was interrupted several times. Please ask again.';
    await sendText(channel, text, { replyTo, nonceSeed: `${run.id}:given-up` }).catch((error: unknown) =>
      deps.logger.warn({ ...log, err: error }, 'could not post the give-up notice'),
    );
    deps.lifecycle.giveUp(run.id);
    deps.logger.warn(log, 'interrupted run given up after several attempts');
  } else {
    const choice = placeChoice(deps, conversation);
    // As a new batch's run (answer, above): its window is loaded once no forget is going on.
    if (await forgottenMeanwhile(deps, conversation, run.id, live)) return;
    const { history, speakers } = deps.memory.loadWindow(conversation.id, decision.triggerIds, {
      ...choice.window,
      resuming: true,
    });
    deps.logger.info(log, 'taking up an interrupted run');
    await executeRun(deps, {
      conversation,
      choice,
      place: describePlace(channel),
      channelId: channel.id,
      target: { channel, replyTo },
      history,
      speakers,
      input: [],
      triggerIds: decision.triggerIds,
      requesters: triggers.map(storedRequester),
      resumedFrom: run.id,
      calledBefore: decision.calledBefore,
      shownIn,
    });
  }
}

/**
 * Posts the answer a cut-off run had reached (what the channel does not show yet), checked as a
 * run's answer is, and records it delivered; unless a forget took the run meanwhile. A /forget-me of
 * its people from that check on waits for the post, as for a run's.
 */
async function postAnswerReached(
  deps: TakeUpServices,
  conversation: ConversationRow,
  cutOff: { run: RunRow; reached: TakeUp & { kind: 'post-answer' }; triggers: readonly MessageRow[] },
  where: Pick<AnswerPost, 'channel' | 'replyTo' | 'postedAfter' | 'live'>,
): Promise<void> {
  const { run, reached, triggers } = cutOff;
  const { live } = where;
  if (await forgottenMeanwhile(deps, conversation, run.id, live)) return;
  const delivery = deps.activeRuns.beginDelivery({
    guildId: conversation.guild_id,
    requesterIds: triggers.map((row) => storedRequester(row).id),
  });
  const log = { runId: run.id, conversation: conversation.key };
  try {
    const checks = placeChoice(deps, conversation).contentCheck ? deps.contentChecks : null;
    const text = await reachedAnswerText(
      checks,
      {
        conversationId: conversation.id,
        conversationKey: conversation.key,
        guildId: conversation.guild_id,
        runId: run.id,
        messageId: reached.triggerIds.at(-1) ?? null,
      },
      {
        answer: reached.answer,
        question: triggers.map((row) => row.content).join('\n'),
        shown: live?.started ? live.shown : null,
      },
    );
    let delivered: 'posted' | 'post-failed' = 'posted';
    try {
      await postAnswer(deps, { runId: run.id, text, ...where });
    } catch (error) {
      const details = { ...log, err: error, cause: describeDiscordError(error) };
      deps.logger.error(details, 'could not post the answer of an interrupted run');
      delivered = 'post-failed';
    }
    deps.lifecycle.answeredAfterAll(run.id, delivered);
    deps.logger.info(
      log,
      live?.started
        ? 'interrupted run: the answer it was showing is finished'
        : 'interrupted run: its answer is posted',
    );
  } finally {
    delivery.settled();
  }
}

/**
 * Waits for any forget going on in the place, then says whether a forget of one of the run's people
 * took its row while it was being taken up (a /forget-me as it fetched what it had shown; `npm run
 * forget`). What it reached or showed may quote them: nothing of it is checked, posted or continued,
 * and what it showed goes, as for a run forgotten while it ran (post-answer.ts `deliver`). Past
 * this a /forget-me finds the run begun in the same tick, and waits for it: a continued one by
 * `executeRun`, a reached answer's post by `beginDelivery`.
 */
async function forgottenMeanwhile(
  deps: TakeUpServices,
  conversation: ConversationRow,
  runId: string,
  live: LiveAnswer | null,
): Promise<boolean> {
  await deps.forgets.clearOf(conversation.guild_id);
  if (deps.store.runs.byId(runId)) return false;
  await live?.abandon();
  deps.logger.warn(
    { runId, conversation: conversation.key },
    'interrupted run not taken up: it was forgotten meanwhile',
  );
  return true;
}

/**
 * The messages a cut-off run's answer was being shown in (to be edited into the answer reached, or
 * removed: a new run shows its own), or null when it showed none.
 */
async function cutOffLiveAnswer(
  deps: TakeUpServices,
  channel: SendableChannels,
  run: RunRow,
): Promise<LiveAnswer | null> {
  const liveIds = [
    ...(JSON.parse(run.live_message_ids) as string[]),
    ...(await unrecordedLivePost(deps, channel, run)),
  ];
  if (liveIds.length === 0) return null;
  return LiveAnswer.resume({ channel, replyTo: null }, liveIds, {
    runId: run.id,
    onPosted: (messageId) => deps.store.runs.addLiveMessage(run.id, messageId),
    logger: deps.logger,
  });
}
