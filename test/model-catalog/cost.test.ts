import { describe, expect, it } from 'vitest';
import { costOf } from '../../src/model-catalog/cost.ts';

describe('cost from MODELS_FILE', () => {
  it("prices the prompt tokens a server took from its cache at the cached-input price, and at input's without one", () => {
    // A million prompt tokens, 800,000 of them cached, and a million completion tokens.
    expect(costOf({ input: 2, output: 8, cachedInput: 0.5 }, 1_000_000, 1_000_000, 800_000)).toBeCloseTo(
      0.2 * 2 + 0.8 * 0.5 + 8,
    );
    expect(costOf({ input: 2, output: 8 }, 1_000_000, 1_000_000, 800_000)).toBeCloseTo(2 + 8);
    expect(costOf(null, 1, 1, 1)).toBeNull();
  });
});
