/**
 * The content check of a run's answer, made when a run starts in Discord (src/discord/runs/run-in-discord.ts): it sees each
 * piece of a live answer before the edit that shows it (runs/live-answer.ts), and the whole answer before
 * it is posted (runs/post-answer.ts `deliver`).
 */
import type { FinalAnswer } from '../agent/final-answer.ts';
import { userText, type UserMessage } from '../agent/messages.ts';
import { answerHeldNotice, AnswerScreen } from './answer-screen.ts';
import type { CheckedPlace, ContentChecks } from './content-checks.ts';
import { renderAnswer } from '../posts/render.ts';

/** The screen of one run's answer; null when nothing is checked (CONTENT_CHECK=off). */
export function answerScreenOf(
  checks: ContentChecks | null,
  plan: {
    conversation: { id: number; key: string; guild_id: string | null };
    input: readonly UserMessage[];
    triggerIds: readonly number[];
  },
  runId: string,
): AnswerScreen | null {
  if (!checks) return null;
  const place = {
    conversationId: plan.conversation.id,
    conversationKey: plan.conversation.key,
    guildId: plan.conversation.guild_id,
    runId,
    messageId: plan.triggerIds.at(-1) ?? null,
  };
  return new AnswerScreen(checks, place, plan.input.map((message) => userText(message.content)).join('\n'));
}

/**
 * The text to post for an answer a run reached before a crash cut it off (take-up.ts): checked as
 * a whole first; held back, what was shown ends with why (or the notice stands alone).
 */
export async function reachedAnswerText(
  checks: ContentChecks | null,
  place: CheckedPlace,
  reached: { answer: FinalAnswer; question: string; shown: string | null },
): Promise<string> {
  if (!checks) return renderAnswer(reached.answer);
  const screen = new AnswerScreen(checks, place, reached.question);
  if (await screen.allows(reached.answer.answer)) return renderAnswer(reached.answer);
  return reached.shown
    ? `${reached.shown}\n-# ${answerHeldNotice(screen.held!, true)}`
    : answerHeldNotice(screen.held!, false);
}
