import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatObservation, maxObservationChars } from '../../src/agent/tool-turn.ts';
import { renderToolTurn } from '../../src/posts/render.ts';
import { cutAt, ellipsis, safeCutIndex, truncate, truncateLine, truncateWithNote } from '../../src/text/truncate.ts';

/** Half a surrogate pair, alone: what a cut in the wrong place leaves behind. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Well-formed text dense in surrogate pairs, white space and line breaks, so that cuts land on and next to them. */
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '\t', '😀', '𝄞', 'é'), maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
);
const max = fc.integer({ min: 1, max: 70 });

describe('safeCutIndex', () => {
  it('moves a cut inside a surrogate pair back before it, and leaves any other cut where it is', () => {
    expect(safeCutIndex('a😀b', 2)).toBe(1);
    expect(safeCutIndex('a😀b', 1)).toBe(1);
    expect(safeCutIndex('a😀b', 3)).toBe(3);
    expect(safeCutIndex('abc', 10)).toBe(3);
    expect(safeCutIndex('abc', -1)).toBe(0);
  });
});

describe('cutAt', () => {
  it('keeps the longest start that fits, with no marker and no half pair', () => {
    fc.assert(
      fc.property(text, max, (input, limit) => {
        const cut = cutAt(input, limit);
        expect(input.startsWith(cut)).toBe(true);
        expect(cut.length).toBeLessThanOrEqual(limit);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(input.length, limit - 1));
        expect(cut).not.toMatch(loneSurrogate);
      }),
    );
  });
});

describe('truncate', () => {
  it('leaves text that fits as it is', () => {
    expect(truncate('hello', 5)).toBe('hello');
  });

  it('ends a cut text with "…" within the limit, without trailing space or half a pair', () => {
    expect(truncate('hello world', 7)).toBe('hello…');
    expect(truncate('ab😀', 3)).toBe('ab…');
    expect(truncate('😀😀', 2)).toBe('…');
    fc.assert(
      fc.property(text, max, (input, limit) => {
        const result = truncate(input, limit);
        expect(result.length).toBeLessThanOrEqual(limit);
        if (input.length <= limit) {
          expect(result).toBe(input);
          return;
        }
        expect(result.endsWith(ellipsis)).toBe(true);
        const kept = result.slice(0, -ellipsis.length);
        expect(input.startsWith(kept)).toBe(true);
        expect(kept).toBe(kept.trimEnd());
        expect(result).not.toMatch(loneSurrogate);
      }),
    );
  });
});

describe('truncateLine', () => {
  it('puts the text on one line, then cuts it', () => {
    expect(truncateLine('  a\n\n b\tc  ', 10)).toBe('a b c');
    fc.assert(
      fc.property(text, max, (input, limit) => {
        const result = truncateLine(input, limit);
        expect(result.length).toBeLessThanOrEqual(limit);
        expect(result).not.toMatch(/\s\s|\n|^\s|\s$/);
        expect(result).not.toMatch(loneSurrogate);
      }),
    );
  });
});

describe('truncateWithNote', () => {
  it('keeps the first max characters (one fewer to keep a pair whole) and says what was left out', () => {
    const note = (shown: number, total: number) => `[${shown}/${total}]`;
    expect(truncateWithNote('abcdef', 4, note)).toBe('abcd[4/6]');
    expect(truncateWithNote('abc😀', 4, note)).toBe('abc[3/5]');
    expect(truncateWithNote('abc', 4, note)).toBe('abc');
    fc.assert(
      fc.property(text, max, (input, limit) => {
        let seen: [number, number] | null = null;
        const result = truncateWithNote(input, limit, (shown, total) => {
          seen = [shown, total];
          return '';
        });
        if (input.length <= limit) {
          expect(result).toBe(input);
          return;
        }
        expect(seen).toEqual([result.length, input.length]);
        expect(input.startsWith(result)).toBe(true);
        expect(result.length).toBeGreaterThanOrEqual(limit - 1);
        expect(result).not.toMatch(loneSurrogate);
      }),
    );
  });
});

// The places that used to cut with a bare slice(), and split a pair when it fell on the limit.
describe('what the model and people see is never cut inside a surrogate pair', () => {
  it('a tool result cut for the model', () => {
    const result = `${'x'.repeat(maxObservationChars - 1)}😀${'y'.repeat(10)}`;
    const observation = formatObservation(result);
    expect(observation).toBe(`${'x'.repeat(maxObservationChars - 1)}\n[cut: 12 more characters]`);
    expect(observation).not.toMatch(loneSurrogate);
  });

  it('a tool post in a thread', () => {
    const post = renderToolTurn([{ name: 'echo', arguments: '{}', ok: true, text: `${'x'.repeat(298)}😀😀` }], 'all');
    expect(post).not.toMatch(loneSurrogate);
    expect(post).toContain(`${'x'.repeat(298)}…`);
  });
});
