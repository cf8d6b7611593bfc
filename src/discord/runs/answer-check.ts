/**
 * The content check of a run's answer, made when the run starts (run-in-discord.ts): it sees each
 * piece of a live answer before the edit that shows it (live-answer.ts), and the whole answer before
 * it is posted (post-answer.ts `deliver`).
 */
import { userText, type UserMessage } from '../../agent/messages.ts';
import { AnswerScreen } from '../../content-check/answer-screen.ts';
import type { ContentChecks } from '../../content-check/content-checks.ts';

/** The screen of one run's answer; null when nothing is checked (CONTENT_CHECK=off). */
export function answerScreenOf(
  checks: ContentChecks | null,
  plan: { conversation: { id: number; key: string }; input: readonly UserMessage[]; triggerIds: readonly number[] },
  runId: string,
): AnswerScreen | null {
  if (!checks) return null;
  const place = {
    conversationId: plan.conversation.id,
    conversationKey: plan.conversation.key,
    runId,
    messageId: plan.triggerIds.at(-1) ?? null,
  };
  return new AnswerScreen(checks, place, plan.input.map((message) => userText(message.content)).join('\n'));
}
