/**
 * The last stage of a run in Discord. Comes from: a run's end (run-in-discord.ts `deliver`) or a
 * run resumed after a crash that had reached its answer (resume-run.ts). Does: pass the run's words
 * through the seat before posting (before-post.ts), then post the answer, or why there is none, once: edited into the messages that showed it as it was written, or sent in
 * pieces whose nonces make a retried send post nothing twice. Goes to: the run's lifecycle, which
 * records it delivered (posted, or tried and failed), so that nothing is owed at the next start.
 */
import type { SendableChannels } from 'discord.js';
import type { AnswerScreen } from '../../content-check/answer-screen.ts';
import { beforePost } from './before-post.ts';
import type { RunOutcome } from '../../conversation/conversation-run.ts';
import { renderAnswer } from '../../posts/render.ts';
import type { BotServices } from '../bot-services.ts';
import { describeDiscordError } from '../discord-errors.ts';
import { type NumberedPiece, piecesNotYetPosted, sendPieces } from '../outbound/send.ts';
import { splitMessage } from '../../posts/split-message.ts';
import type { TargetToBe } from '../outbound/posting-channel.ts';
import type { LiveAnswer } from './live-answer.ts';

/** An answer's text and where it goes. */
export interface AnswerPost {
  runId: string;
  text: string;
  channel: SendableChannels;
  replyTo: string | null;
  /** The messages showing it as it was written (finished into it), or null. */
  live: LiveAnswer | null;
  /**
   * Set when the answer may have been posted, in part, by a process that died: the pieces the
   * channel already shows from the bot after this message (null: the channel's start) are not
   * posted again.
   */
  postedAfter?: string | null;
}

/** Posts an answer (or a notice that takes its place) once, recording each message with the run. */
export async function postAnswer(services: Pick<BotServices, 'client' | 'store'>, post: AnswerPost): Promise<void> {
  if (post.live?.started) return post.live.finish(post.text);
  await post.live?.abandon();
  const pieces: NumberedPiece[] =
    post.postedAfter === undefined
      ? splitMessage(post.text).map((content, index) => ({ index, content }))
      : await piecesNotYetPosted(post.channel, post.text, post.postedAfter, services.client.user.id);
  await sendPieces(post.channel, pieces, {
    replyTo: post.replyTo,
    nonceSeed: `${post.runId}:answer`,
    onSent: (messageId) => services.store.runs.addPostedMessage(post.runId, messageId),
  });
}

/**
 * Posts what a run came to, and records the run delivered (tried, and logged if it failed). An
 * answer shown as it was written is edited into the answer; one stopped by `/stop` ends with a mark
 * saying so, one stopped by a limit (its time, its steps) with the limit's message; one that came
 * to nothing is removed, and why is posted as usual. Resolves to whether an answer was posted as
 * the model gave it (not a notice, not held back).
 */
export async function deliver(
  services: Pick<BotServices, 'client' | 'store' | 'lifecycle' | 'gates' | 'logger'>,
  plan: { conversation: { key: string }; channelId: string | null; target: TargetToBe; choice: { modelName: string } },
  outcome: RunOutcome,
  live: LiveAnswer | null = null,
  screen: AnswerScreen | null = null,
): Promise<boolean> {
  if (outcome.kind === 'interrupted') return false;
  if (outcome.kind === 'no-answer' && outcome.rateLimitSeconds !== null)
    services.gates.of(plan.choice.modelName).rateLimited(outcome.rateLimitSeconds, plan.conversation.key);
  const { runId } = outcome;
  await live?.close(); // What was shown is settled before it is decided what to do with it.
  const verdict = await beforePost(services, {
    runId,
    answer: outcome.kind === 'answered' ? outcome.answer : null,
    shown: live?.started ? live.shown : null,
    screen,
  });
  if (verdict.kind === 'drop') {
    await live?.abandon();
    services.logger.warn({ runId, channelId: plan.channelId }, 'answer not posted: its run was forgotten meanwhile');
    return false;
  }
  const stoppedWhileShown = live?.started && outcome.kind === 'no-answer' && outcome.status === 'stopped';
  const text =
    verdict.kind === 'hold'
      ? verdict.text
      : outcome.kind === 'answered'
        ? renderAnswer(outcome.answer)
        : stoppedWhileShown
          ? `${live.shown}\n-# ${outcome.stopReason === 'aborted' ? '(stopped)' : outcome.userMessage}`
          : outcome.userMessage;
  const keepShown = outcome.kind === 'answered' || stoppedWhileShown;
  try {
    if (!keepShown) await live?.abandon();
    await postAnswer(services, { runId, text, ...(await plan.target), live: keepShown ? live : null });
    services.lifecycle.deliver(runId, 'posted');
    return outcome.kind === 'answered' && verdict.kind === 'post';
  } catch (error) {
    services.logger.error(
      { err: error, runId, channelId: plan.channelId, cause: describeDiscordError(error) },
      'could not post the answer',
    );
    // Only a crash before this line leaves an answer to deliver at the next start.
    services.lifecycle.deliver(runId, 'post-failed');
    return false;
  }
}
