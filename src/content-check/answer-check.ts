/**
 * The content check of a run's answer, made when a run starts in Discord (src/discord/runs/run-in-discord.ts): it sees each
 * piece of a live answer before the edit that shows it (runs/live-answer.ts), and the whole answer before
 * it is posted (runs/post-answer.ts `deliver`).
 */
import { userText, type UserMessage } from '../agent/messages.ts';
import { AnswerScreen } from './answer-screen.ts';
import { checkedPlace, type ContentChecks } from './content-checks.ts';

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
  const place = checkedPlace(plan.conversation, runId, plan.triggerIds.at(-1) ?? null);
  return new AnswerScreen(checks, place, plan.input.map((message) => userText(message.content)).join('\n'));
}
