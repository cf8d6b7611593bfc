/**
 * CONTENT_CHECK=moderations: `POST {base}/moderations` as OpenAI's moderation API takes it
 * (https://platform.openai.com/docs/api-reference/moderations/create): the text alone as a string,
 * or with images as a list of `text` and `image_url` parts (omni-moderation reads both). A result
 * per input; the text is flagged when any result is, with the categories any result flags.
 */
import { describeError } from '../agent/errors.ts';
import { createModerationTransport } from '../model-servers/openai-transport.ts';
import type { CheckServer } from './content-check-settings.ts';
import type { CheckInput, ContentChecker, ContentVerdict } from './content-verdict.ts';

interface ModerationResult {
  flagged?: unknown;
  categories?: Record<string, unknown>;
  category_scores?: Record<string, unknown>;
}

export function moderationsCheck(server: CheckServer): ContentChecker {
  const send = createModerationTransport(server);
  return {
    kind: 'moderations',
    async check(input, signal = new AbortController().signal) {
      let reply: unknown;
      try {
        reply = await send({ model: server.model, input: moderationInput(input) }, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        return { outcome: 'unavailable', detail: describeError(error) };
      }
      return readModeration(reply);
    },
  };
}

/** The input as the API takes it: a string, or text and image parts. */
function moderationInput({ text, images = [] }: CheckInput): string | unknown[] {
  if (images.length === 0) return text;
  return [
    ...(text ? [{ type: 'text', text }] : []),
    ...images.map((url) => ({ type: 'image_url', image_url: { url } })),
  ];
}

/** The verdict of a moderation reply; one without a readable result is no verdict. */
export function readModeration(reply: unknown): ContentVerdict {
  const results = (reply as { results?: unknown } | null)?.results;
  if (!Array.isArray(results) || results.length === 0 || results.some((result) => typeof result?.flagged !== 'boolean'))
    return { outcome: 'unavailable', detail: 'the moderation reply holds no result' };
  const flagged = (results as ModerationResult[]).filter((result) => result.flagged === true);
  if (flagged.length === 0) return { outcome: 'passed' };
  const categories = new Set<string>();
  const scores: Record<string, number> = {};
  for (const result of flagged) {
    for (const [name, on] of Object.entries(result.categories ?? {})) if (on === true) categories.add(name);
    for (const [name, score] of Object.entries(result.category_scores ?? {}))
      if (typeof score === 'number' && categories.has(name)) scores[name] = Math.max(scores[name] ?? 0, score);
  }
  return { outcome: 'flagged', categories: [...categories], scores };
}
