/**
 * A run a crash or a shutdown cut off, resumed at the next start. Comes from: the queue's consumer
 * (answer-new-messages.ts), before any new message of the conversation. Does: what the run's
 * lifecycle decides (run-lifecycle.ts `resumption`): post the answer it had reached (unless the
 * channel shows it was), give up, or let the model continue from the steps on disk (finished tool
 * calls are in memory with their results; unfinished ones read as interrupted). Both the reached
 * answer and the continued run pass the seat before the model (before-model.ts); the reached answer
 * then the seat before posting (before-post.ts), as a run's answer does. Goes to: run-in-discord.ts
 * for a run that continues; post-answer.ts for a reached answer.
 */
import type { SendableChannels } from 'discord.js';
import type { ConversationRow } from '../../../db/conversations.ts';
import type { MessageRow } from '../../../db/messages.ts';
import type { RunRow } from '../../../db/runs.ts';
import { AnswerScreen } from '../../content-check/answer-screen.ts';
import { checkedPlace } from '../../content-check/content-checks.ts';
import { storedRequester } from '../../conversation/queued-work.ts';
import type { Resumption } from '../../conversation/run-lifecycle.ts';
import { type PlaceChoice, placeChoice } from '../../place-settings/place-choice.ts';
import { renderAnswer } from '../../posts/render.ts';
import { describeDiscordError } from '../discord-errors.ts';
import { messagesAfter } from '../inbound/messages-after.ts';
import { sendText } from '../outbound/send.ts';
import { beforeModel } from './before-model.ts';
import { beforePost } from './before-post.ts';
import { LiveAnswer } from './live-answer.ts';
import { type AnswerPost, postAnswer } from './post-answer.ts';
import { answerWithRun, describePlace, type PlanServices } from './run-in-discord.ts';

/** Resumes one cut-off run as its lifecycle decides. */
export async function resumeCutOffRun(
  deps: PlanServices,
  conversation: ConversationRow,
  channel: SendableChannels,
  run: RunRow,
): Promise<void> {
  const decision = deps.lifecycle.resumption(run);
  const live = await cutOffLiveAnswer(deps, channel, run);
  // A run that continues it shows its answer in the same messages (STREAM_ANSWERS on); otherwise they go.
  const shownIn = decision.kind === 'continue' && deps.discord.streamAnswers ? (live?.messageIds ?? []) : [];
  if (decision.kind !== 'post-answer' && shownIn.length === 0) await live?.abandon();
  if (decision.kind === 'nothing-to-answer') return deps.lifecycle.deliver(run.id, 'nothing-to-answer');
  const triggers = decision.triggerIds.flatMap((id) => deps.store.messages.byId(id) ?? []);
  const lastTrigger = triggers.at(-1)?.discord_message_id ?? null;
  const replyTo = lastTrigger && channel.id === conversation.thread_id ? lastTrigger : null;
  if (decision.kind === 'give-up') return giveUp(deps, conversation, run, channel, replyTo);
  const placed = placeChoice(deps, conversation);
  // A schedule's run taken up stays one: no member's facts in it (queued-work.ts `scheduled`).
  const choice = triggers.some((row) => row.scheduled) ? { ...placed, memberMemory: false } : placed;
  // As a new batch's run: through the seat before the model (a forget going on, one that took it).
  const passed = await beforeModel(deps, { conversation, choice, messages: [], resumedFrom: run.id });
  if ('stop' in passed) {
    await live?.abandon();
    deps.logger.warn(
      { runId: run.id, conversation: conversation.key },
      'interrupted run not taken up: it was forgotten meanwhile',
    );
    return;
  }
  const cutOff = { run, choice, triggers };
  if (decision.kind === 'post-answer')
    return postAnswerReached(deps, conversation, { ...cutOff, reached: decision }, { channel, replyTo, live });
  const { history, speakers } = deps.memory.loadWindow(conversation.id, decision.triggerIds, {
    ...choice.window,
    resuming: true,
  });
  deps.logger.info({ runId: run.id, conversation: conversation.key }, 'taking up an interrupted run');
  await answerWithRun(deps, {
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

/** A run cut off again and again (a tool that brings the process down, say): its people are told, and it is not tried again. */
async function giveUp(
  deps: PlanServices,
  conversation: ConversationRow,
  run: RunRow,
  channel: SendableChannels,
  replyTo: string | null,
): Promise<void> {
  const log = { runId: run.id, conversation: conversation.key };
  const text = 'I could not finish answering this: I was interrupted several times. Please ask again.';
  await sendText(channel, text, { replyTo, nonceSeed: `${run.id}:given-up` }).catch((error: unknown) =>
    deps.logger.warn({ ...log, err: error }, 'could not post the give-up notice'),
  );
  deps.lifecycle.giveUp(run.id);
  deps.logger.warn(log, 'interrupted run given up after several attempts');
}

/**
 * Posts the answer a cut-off run had reached (what the channel does not show yet), through the
 * seat before posting as a run's answer is, and records it delivered. A /forget-me of its people
 * from here on waits for the post, as for a run's.
 */
async function postAnswerReached(
  deps: PlanServices,
  conversation: ConversationRow,
  cutOff: {
    run: RunRow;
    choice: PlaceChoice;
    reached: Resumption & { kind: 'post-answer' };
    triggers: readonly MessageRow[];
  },
  where: Pick<AnswerPost, 'channel' | 'replyTo' | 'live'>,
): Promise<void> {
  const { run, reached, triggers, choice } = cutOff;
  const { live } = where;
  const delivery = deps.activeRuns.beginDelivery({
    guildId: conversation.guild_id,
    requesterIds: triggers.map((row) => storedRequester(row).id),
  });
  const log = { runId: run.id, conversation: conversation.key };
  try {
    const screen = choice.checks && reachedAnswerScreen(choice.checks, conversation, run.id, cutOff);
    const shown = live?.started ? live.shown : null;
    const verdict = await beforePost(deps, { runId: run.id, answer: reached.answer, shown, screen });
    if (verdict.kind === 'drop') {
      await live?.abandon();
      deps.logger.warn(log, 'interrupted run not taken up: it was forgotten meanwhile');
      return;
    }
    const text = verdict.kind === 'hold' ? verdict.text : renderAnswer(reached.answer);
    let delivered: 'posted' | 'post-failed' = 'posted';
    try {
      const postedAfter = triggers.at(-1)?.discord_message_id ?? null;
      await postAnswer(deps, { runId: run.id, text, ...where, postedAfter });
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

/** The content check of a reached answer: against the questions it answers, as the run's own would have been. */
function reachedAnswerScreen(
  checks: NonNullable<PlaceChoice['checks']>,
  conversation: ConversationRow,
  runId: string,
  cutOff: { reached: { triggerIds: readonly number[] }; triggers: readonly MessageRow[] },
): AnswerScreen {
  const place = checkedPlace(conversation, runId, cutOff.reached.triggerIds.at(-1) ?? null);
  return new AnswerScreen(checks, place, cutOff.triggers.map((row) => row.content).join('\n'));
}

/**
 * The message of a run's answer that Discord took from a process killed before it recorded the id:
 * the bot's message after the run's question with the text it was posting (`live_pending`).
 */
async function unrecordedLivePost(deps: PlanServices, channel: SendableChannels, run: RunRow): Promise<string[]> {
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
 * The messages a cut-off run's answer was being shown in (to be edited into the answer reached, or
 * removed: a new run shows its own), or null when it showed none.
 */
async function cutOffLiveAnswer(
  deps: PlanServices,
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
