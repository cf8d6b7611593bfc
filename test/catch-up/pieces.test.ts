/** The map step's pieces, with the memory's real token counter: whole lines, each piece within its budget. */
import { beforeAll, describe, expect, it } from 'vitest';
import { cutIntoPieces } from '../../src/catch-up/pieces.ts';
import { deferredTokenCounter } from '../../src/memory/token-counter.ts';

describe('cutIntoPieces', () => {
  const counter = deferredTokenCounter('gpt-4o');
  beforeAll(() => counter.load());
  const lines = Array.from(
    { length: 40 },
    (_, i) => `Ana (message ${i}): the release moves to Friday, said for the ${i}th time`,
  );

  it('keeps every line once, in order, each piece within the budget', () => {
    const pieces = cutIntoPieces(lines, 100, counter);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.flat()).toEqual(lines);
    for (const piece of pieces) {
      expect(piece.reduce((sum, line) => sum + counter.count(line) + 1, 0)).toBeLessThanOrEqual(100);
    }
  });

  it('cuts a line longer than the budget to a piece of its own', () => {
    const long = 'word '.repeat(500);
    const pieces = cutIntoPieces(['short', long, 'after'], 50, counter);
    expect(pieces).toHaveLength(3);
    expect(counter.count(pieces[1]![0]!)).toBeLessThanOrEqual(49);
  });
});
