import { describe, expect, it } from 'vitest';
import { fuseByRank } from '../../src/knowledge/reciprocal-rank.ts';

describe('fuseByRank', () => {
  it('ranks first what both lists rank high, then what one ranks first', () => {
    // c: 1/62 + 1/61; a: 1/61; b: 1/62 + 1/63 (more than a: two lists hold it).
    expect(
      fuseByRank([
        ['a', 'c', 'b'],
        ['c', 'b', 'd'],
      ]),
    ).toEqual(['c', 'b', 'a', 'd']);
  });

  it('keeps a single ranking as it is', () => {
    expect(fuseByRank([[3, 1, 2]])).toEqual([3, 1, 2]);
  });
});
