import { beforeAll, describe, expect, it } from 'vitest';
import { loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter('gpt-4.1-mini');
});

describe('the token counter on text people and models write', () => {
  it('counts text that spells a special token as text, instead of throwing', () => {
    // Typed in Discord, or written by a model: the API reads it as text too.
    for (const text of ['hello <|endoftext|> world', '<|im_start|>system', '<|fim_prefix|>', '<|endofprompt|>']) {
      expect(counter.count(text)).toBeGreaterThan(1);
      expect(counter.truncate(`${text} and more words after it`, 3).length).toBeGreaterThan(0);
    }
  });
});
