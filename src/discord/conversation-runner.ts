import type { SendableChannels } from 'discord.js';
import type { ConversationRow } from '../../db/conversations.ts';
import type { RunRow } from '../../db/runs.ts';
import { type QueuedWork, storedRequester } from '../conversation/queued-work.ts';
import { describeDiscordError } from './discord-errors.ts';
import { type DiscordRunPlan, describePlace, executeRun, type RunnerDependencies } from './execute-run.ts';
import { LiveAnswer } from './live-answer.ts';
import { messagesAfter } from './messages-after.ts';
import { postingChannel } from './posting-channel.ts';
import { renderAnswer } from './render.ts';
import { piecesNotYetPosted, sendPieces, sendText } from './send.ts';

/** Handles a conversation's queued work: runs to take up again first, then the new messages as one batch. */
export async function handleWork(
  deps: RunnerDependencies,
  conversationKey: string,
  work: readonly QueuedWork[],
): Promise<void> {
  if (deps.shutdown.aborted) return; // Stored already: answered after the next start.
  const stored = deps.store.conversations.byKey(conversationKey);
  if (!stored) return; // Purged (its thread was deleted) while the work waited.
  const place = await postingChannel(deps.client, deps.store, stored, deps.logger);
  if (!place) return;
  const { channel, conversation } = place;
  for (const item of work) {
    if (item.kind !== 'take-up') continue;
    try {
      await takeUp(deps, conversation, channel, item.run);
    } catch (error) {
      // One run that cannot be taken up must not keep the others, or the new messages, waiting.
      deps.logger.error(
        { err: error, runId: item.run.id, conversation: conversation.key },
        'could not take up an interrupted run',
      );
      deps.lifecycle.deliver(item.run.id, 'post-failed');
    }
  }
  const messages = work.filter((item) => item.kind === 'message');
  if (messages.length === 0) return;
  const triggerIds = messages.map((item) => item.storedId);
  const window = deps.memory.loadWindow(conversation.id, triggerIds);
  if (window.input.length === 0) return; // Every message of the batch was deleted while it waited.
  const last = messages.at(-1)!;
  await executeRun(deps, {
    ...planIn(conversation, channel),
    ...window,
    triggerIds,
    requesters: messages.map((item) => item.requester),
    replyTo: last.messageChannelId === channel.id ? last.messageId : null,
    resumedFrom: null,
    calledBefore: [],
  });
}

/** What every plan in this conversation and channel shares. */
function planIn(
  conversation: ConversationRow,
  channel: SendableChannels,
): Pick<DiscordRunPlan, 'conversation' | 'channel' | 'place' | 'channelId'> {
  return { conversation, channel, place: describePlace(channel), channelId: channel.id };
}

/**
 * The message of a run's answer that Discord took from a process killed before it recorded the id:
 * the bot's message after the run's question with the text it was posting (`live_pending`).
 */
async function unrecordedLivePost(deps: RunnerDependencies, channel: SendableChannels, run: RunRow): Promise<string[]> {
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
  deps: RunnerDependencies,
  conversation: ConversationRow,
  channel: SendableChannels,
  run: RunRow,
): Promise<void> {
  const decision = deps.lifecycle.takeUp(run);
  // Messages its answer was being shown in when it was cut off: edited into the answer reached, or
  // removed (a new run shows its own).
  const liveIds = [
    ...(JSON.parse(run.live_message_ids) as string[]),
    ...(await unrecordedLivePost(deps, channel, run)),
  ];
  const live =
    liveIds.length === 0
      ? null
      : await LiveAnswer.resume(channel, liveIds, {
          runId: run.id,
          replyTo: null,
          onPosted: (messageId) => deps.store.runs.addLiveMessage(run.id, messageId),
          logger: deps.logger,
        });
  // A run that continues it shows its answer in the same messages (STREAM_ANSWERS on); otherwise they go.
  const shownIn = decision.kind === 'continue' && deps.discord.streamAnswers ? (live?.messageIds ?? []) : [];
  if (decision.kind !== 'post-answer' && shownIn.length === 0) await live?.abandon();
  if (decision.kind === 'nothing-to-answer') return deps.lifecycle.deliver(run.id, 'nothing-to-answer');
  const triggers = decision.triggerIds.flatMap((id) => deps.store.messages.byId(id) ?? []);
  const lastTrigger = triggers.at(-1)?.discord_message_id ?? null;
  const replyTo = lastTrigger && channel.id === conversation.thread_id ? lastTrigger : null;
  const log = { runId: run.id, conversation: conversation.key };
  switch (decision.kind) {
    case 'post-answer': {
      const text = renderAnswer(decision.answer);
      let delivery: 'posted' | 'post-failed' = 'posted';
      try {
        if (live?.started) {
          await live.finish(text);
          deps.lifecycle.answeredAfterAll(run.id, delivery);
          deps.logger.info(log, 'interrupted run: the answer it was showing is finished');
          return;
        }
        const missing = await piecesNotYetPosted(channel, text, lastTrigger, deps.client.user.id);
        await sendPieces(channel, missing, {
          replyTo,
          nonceSeed: `${run.id}:answer`,
          onSent: (id) => deps.store.runs.addPostedMessage(run.id, id),
        });
      } catch (error) {
        deps.logger.error(
          { ...log, err: error, cause: describeDiscordError(error) },
          'could not post the answer of an interrupted run',
        );
        delivery = 'post-failed';
      }
      deps.lifecycle.answeredAfterAll(run.id, delivery);
      deps.logger.info(log, 'interrupted run: its answer is posted');
      return;
    }
    case 'give-up': {
      const text = 'I could not finish answering this: I was interrupted several times. Please ask again.';
      await sendText(channel, text, { replyTo, nonceSeed: `${run.id}:given-up` }).catch((error: unknown) =>
        deps.logger.warn({ ...log, err: error }, 'could not post the give-up notice'),
      );
      deps.lifecycle.giveUp(run.id);
      deps.logger.warn(log, 'interrupted run given up after several attempts');
      return;
    }
    case 'continue': {
      const { history } = deps.memory.loadWindow(conversation.id, decision.triggerIds, { resuming: true });
      deps.logger.info(log, 'taking up an interrupted run');
      await executeRun(deps, {
        ...planIn(conversation, channel),
        history,
        input: [],
        triggerIds: decision.triggerIds,
        requesters: triggers.map(storedRequester),
        replyTo,
        resumedFrom: run.id,
        calledBefore: decision.calledBefore,
        shownIn,
      });
    }
  }
}
