import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countOf, countsInWords, formatCount } from '../../src/text/count.ts';

describe('a count as people read it', () => {
  it('groups thousands as en-US does: 0, 999, 1,000, 16,000, 1,048,576, -12,345, -0', () => {
    expect([0, 999, 1_000, 16_000, 1_048_576, -12_345, -0].map(formatCount)).toEqual([
      '0',
      '999',
      '1,000',
      '16,000',
      '1,048,576',
      '-12,345',
      '-0',
    ]);
  });

  it('writes any integer, and thousandths, exactly as toLocaleString("en-US")', () => {
    const thousandths = fc.integer({ min: -1e12, max: 1e12 }).map((value) => value / 1000);
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), thousandths), (value) => {
        expect(formatCount(value)).toBe(value.toLocaleString('en-US'));
      }),
      { numRuns: 500 },
    );
  });
});

describe('countsInWords', () => {
  it('says each count with its kind, a camelCase kind in words, in the order given, singular for one', () => {
    expect(countsInWords({ messages: 1, images: 0, toolCalls: 2, 'runs stopped': 1 })).toBe(
      '1 message, 0 images, 2 tool calls, 1 run stopped',
    );
    expect(countsInWords({ toolCalls: 1, reports: 1, steps: 1200 })).toBe('1 tool call, 1 report, 1,200 steps');
  });
});

describe('countOf', () => {
  it('says a count with its noun, singular for one only', () => {
    expect([0, 1, 2, 1500].map((count) => countOf(count, 'run'))).toEqual(['0 runs', '1 run', '2 runs', '1,500 runs']);
    expect(countOf(1, 'reply', 'replies')).toBe('1 reply');
    expect(countOf(3, 'reply', 'replies')).toBe('3 replies');
  });
});
