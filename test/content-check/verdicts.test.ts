/**
 * Reading a check's verdict: OpenAI's moderation reply, and Llama Guard 3's words. What reaches
 * the bot from a real server is covered end to end in test/discord/runs/content-check.bot.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readGuardVerdict } from '../../src/content-check/guard-check.ts';
import { readModeration } from '../../src/content-check/moderations-check.ts';

describe("a guard model's verdict", () => {
  it('reads safe, and unsafe with its categories named (S1..S14)', () => {
    expect(readGuardVerdict('safe')).toEqual({ outcome: 'passed' });
    expect(readGuardVerdict('\n\nunsafe\nS1,S10')).toEqual({
      outcome: 'flagged',
      categories: ['violent crimes', 'hate'],
      scores: {},
    });
    expect(readGuardVerdict('unsafe\nS14, S99')).toMatchObject({ categories: ['code interpreter abuse', 'S99'] });
  });

  it('anything else is no verdict (CONTENT_CHECK_ON_ERROR decides)', () => {
    expect(readGuardVerdict('I cannot help with that.')).toMatchObject({ outcome: 'unavailable' });
  });
});

describe('a moderation reply', () => {
  it('flags with the categories any result flags, and their scores', () => {
    const reply = {
      results: [
        { flagged: false, categories: { hate: false }, category_scores: { hate: 0.1 } },
        {
          flagged: true,
          categories: { hate: false, violence: true, 'self-harm': true },
          category_scores: { hate: 0.2, violence: 0.9, 'self-harm': 0.6 },
        },
      ],
    };
    expect(readModeration(reply)).toEqual({
      outcome: 'flagged',
      categories: ['violence', 'self-harm'],
      scores: { violence: 0.9, 'self-harm': 0.6 },
    });
    expect(readModeration({ results: [{ flagged: false }] })).toEqual({ outcome: 'passed' });
  });

  it('a reply without a readable result is no verdict', () => {
    expect(readModeration({})).toMatchObject({ outcome: 'unavailable' });
    expect(readModeration({ results: [{ categories: {} }] })).toMatchObject({ outcome: 'unavailable' });
    expect(readModeration('<html>')).toMatchObject({ outcome: 'unavailable' });
  });
});
