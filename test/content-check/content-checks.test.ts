/**
 * What a check's verdict leads to, with a stub checker and a real database: a flag recorded in
 * content_flags and told to the onContentFlagged hook; an outage as CONTENT_CHECK_ON_ERROR says;
 * an answer checked piece by piece, only for what each piece adds.
 */
import { describe, expect, it } from 'vitest';
import { AnswerScreen } from '../../src/content-check/answer-screen.ts';
import { type ContentFlag, contentChecks } from '../../src/content-check/content-checks.ts';
import type { CheckInput, ContentChecker, ContentVerdict } from '../../src/content-check/content-verdict.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { tempStore } from '../support/temp-store.ts';

const server = { baseURL: 'http://127.0.0.1:9/v1', apiKey: null, model: 'm', timeoutSeconds: 1, maxRetries: 0 };

/** A checker that flags texts holding "bad", or answers as `verdict` says; it keeps what it was asked. */
function stubChecker(verdict?: ContentVerdict): ContentChecker & { asked: CheckInput[] } {
  const asked: CheckInput[] = [];
  return {
    kind: 'moderations',
    asked,
    check: async (input) => {
      asked.push(input);
      if (verdict) return verdict;
      return input.text.includes('bad')
        ? { outcome: 'flagged', categories: ['violence'], scores: { violence: 0.8 } }
        : { outcome: 'passed' };
    },
  };
}

function world(onError: 'allow' | 'refuse', checker: ContentChecker, onContentFlagged?: (flag: ContentFlag) => void) {
  const { store } = tempStore();
  const conversation = store.conversations.ensure({
    key: 'discord:1',
    title: 't',
    guildId: '100000000000000001',
    channelId: '100000000000000010',
    startedById: null,
    startedByName: null,
  });
  const { logger, lines } = recordingLogger();
  const checks = contentChecks({ kind: 'moderations', server, onError }, { store, logger, checker, onContentFlagged })!;
  const place = {
    conversationId: conversation.id,
    conversationKey: conversation.key,
    guildId: conversation.guild_id,
    runId: null,
    messageId: null,
  };
  return { store, checks, lines, place };
}

describe('content checks', () => {
  it('off: nothing is built, nothing asked', () => {
    const { store } = tempStore();
    expect(contentChecks({ kind: 'off' }, { store, logger: recordingLogger().logger })).toBeNull();
  });

  it('a flag is recorded with its categories and scores, logged, and told to the hook (whose failure is only logged)', async () => {
    const heard: ContentFlag[] = [];
    const { store, checks, lines, place } = world('refuse', stubChecker(), (flag) => {
      heard.push(flag);
      throw new Error('the log channel is down');
    });
    expect(await checks.screen({ target: 'question', text: 'fine' }, place)).toEqual({ show: true });
    expect(await checks.screen({ target: 'question', text: 'bad' }, place)).toEqual({
      show: false,
      because: 'flagged',
    });

    const [row] = store.contentFlags.ofConversation(place.conversationId);
    expect(row).toMatchObject({ target: 'question', kind: 'moderations', run_id: null });
    expect(JSON.parse(row!.categories)).toEqual({ categories: ['violence'], scores: { violence: 0.8 } });
    expect(heard).toEqual([
      {
        ...place,
        id: row!.id,
        target: 'question',
        kind: 'moderations',
        categories: ['violence'],
        scores: { violence: 0.8 },
      },
    ]);
    expect(lines.map((line) => line.msg)).toEqual(['content flagged', 'the content flag hook failed']);
  });

  it('an outage: refused or allowed as CONTENT_CHECK_ON_ERROR says, and logged either way', async () => {
    const down: ContentVerdict = { outcome: 'unavailable', detail: 'model server answered 500' };
    for (const onError of ['refuse', 'allow'] as const) {
      const { store, checks, lines, place } = world(onError, stubChecker(down));
      const result = await checks.screen({ target: 'answer', text: 'x' }, place);
      expect(result).toEqual(onError === 'allow' ? { show: true } : { show: false, because: 'unavailable' });
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'warn',
          msg: 'content check unavailable',
          fields: expect.objectContaining({ detail: 'model server answered 500', onError }),
        }),
      ]);
      expect(store.contentFlags.ofConversation(place.conversationId)).toEqual([]);
    }
  });
});

describe("an answer's screen", () => {
  it('checks only what each piece adds, skips blank additions, and once held shows nothing more', async () => {
    const checker = stubChecker();
    const { checks, place } = world('refuse', checker);
    const screen = new AnswerScreen(checks, { ...place, runId: null }, 'the question');
    expect(await screen.allows('One. ')).toBe(true);
    expect(await screen.allows('One. Two. ')).toBe(true);
    expect(await screen.allows('One. Two.   ')).toBe(true); // Only white space added: not asked.
    expect(await screen.allows('One. Two.   Then bad words.')).toBe(false);
    expect(await screen.allows('One. Two.   Then bad words. And more.')).toBe(false);
    expect(screen.held).toBe('flagged');
    expect(checker.asked).toEqual([
      { target: 'answer', text: 'One. ', question: 'the question' },
      { target: 'answer', text: 'Two. ', question: 'the question' },
      { target: 'answer', text: '  Then bad words.', question: 'the question' },
    ]);
  });
});
