/**
 * The content checks of a running bot: the checker CONTENT_CHECK chose, what an outage means
 * (CONTENT_CHECK_ON_ERROR), and what a flag leaves behind: a row in `content_flags` (the step log's
 * record, which `/steps status:flagged` reads), a log line, and the `onContentFlagged` hook (the
 * moderators' log channel). Asked by the check of new messages (src/discord/runs/message-check.ts) and
 * the answer's screen (answer-screen.ts).
 */
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';
import type { ContentCheckSettings } from './content-check-settings.ts';
import type { CheckInput, CheckTarget, ContentChecker } from './content-verdict.ts';
import { guardCheck } from './guard-check.ts';
import { moderationsCheck } from './moderations-check.ts';

/** Where a checked text belongs: its conversation, its run (an answer's), its stored message. */
export interface CheckedPlace {
  conversationId: number;
  /** The conversation's key, for log lines. */
  conversationKey: string;
  /** Its Discord server (null outside one): whose log channel hears of a flag. */
  guildId: string | null;
  runId: string | null;
  /** The stored message: the question, or the one the answer answers. */
  messageId: number | null;
}

/** The place of a check in `conversation`: of its run `runId` (null: a question's), about its stored message `messageId`. */
export function checkedPlace(
  conversation: { id: number; key: string; guild_id: string | null },
  runId: string | null,
  messageId: number | null,
): CheckedPlace {
  return {
    conversationId: conversation.id,
    conversationKey: conversation.key,
    guildId: conversation.guild_id,
    runId,
    messageId,
  };
}

/** A flag, as the step log records it and the `onContentFlagged` hook hears it. */
export interface ContentFlag extends CheckedPlace {
  /** The row's id in `content_flags`. */
  id: number;
  target: CheckTarget;
  kind: 'moderations' | 'guard';
  categories: string[];
  scores: Record<string, number>;
}

/** Whether a text may go on: shown, or held back because it was flagged or the check had no verdict. */
export type ScreenResult = { show: true } | { show: false; because: 'flagged' | 'unavailable' };

export interface ContentChecks {
  readonly kind: 'moderations' | 'guard';
  screen(input: CheckInput, place: CheckedPlace, signal?: AbortSignal): Promise<ScreenResult>;
}

export interface ContentCheckParts {
  store: Pick<Store, 'contentFlags'>;
  logger: Logger;
  /** Told of each flag once it is recorded (the log channel posts it); its failure is logged, not thrown. */
  onContentFlagged?: (flag: ContentFlag) => void | Promise<void>;
  /** The checker to use in place of the one the settings name (tests). */
  checker?: ContentChecker;
}

/** The checks CONTENT_CHECK chose; null when it is `off` (nothing is checked anywhere, nothing is asked). */
export function contentChecks(settings: ContentCheckSettings, parts: ContentCheckParts): ContentChecks | null {
  if (settings.kind === 'off') return null;
  const checker =
    parts.checker ?? (settings.kind === 'guard' ? guardCheck(settings.server) : moderationsCheck(settings.server));
  const { logger } = parts;
  return {
    kind: checker.kind,
    async screen(input, place, signal) {
      const verdict = await checker.check(input, signal);
      const log = {
        conversation: place.conversationKey,
        runId: place.runId,
        target: input.target,
        check: checker.kind,
      };
      if (verdict.outcome === 'passed') return { show: true };
      if (verdict.outcome === 'unavailable') {
        logger.warn({ ...log, detail: verdict.detail, onError: settings.onError }, 'content check unavailable');
        return settings.onError === 'allow' ? { show: true } : { show: false, because: 'unavailable' };
      }
      const { categories, scores } = verdict;
      const id = parts.store.contentFlags.add({
        conversation_id: place.conversationId,
        run_id: place.runId,
        message_id: place.messageId,
        target: input.target,
        kind: checker.kind,
        categories,
        scores,
      });
      logger.warn({ ...log, categories, scores }, 'content flagged');
      const flag: ContentFlag = { ...place, id, target: input.target, kind: checker.kind, categories, scores };
      try {
        await parts.onContentFlagged?.(flag);
      } catch (error) {
        logger.error({ ...log, err: error }, 'the content flag hook failed');
      }
      return { show: false, because: 'flagged' };
    },
  };
}
