import { beforeAll, describe, expect, it } from 'vitest';
import { deferredTokenCounter, loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';

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

  it('counts and cuts long runs without spaces in time linear in their length', () => {
    // Byte-pair merging is quadratic in the length of a run the tokenizer sees whole: 200,000
    // letters took 50 s, a megabyte minutes, all of it blocking the event loop. In pieces, well
    // under a second.
    const runs = [
      'a'.repeat(300_000),
      '\u200b'.repeat(100_000),
      '🙂'.repeat(100_000),
      '\n'.repeat(200_000),
      'é'.repeat(100_000),
    ];
    for (const text of runs) {
      expect(counter.count(text)).toBeGreaterThan(text.length / 40);
      const cut = counter.truncate(text, 50);
      expect(text.startsWith(cut)).toBe(true);
      expect(counter.count(cut)).toBeLessThanOrEqual(50);
      expect(cut.length).toBeGreaterThan(0);
    }
  }, 10_000);

  it('counts ordinary text exactly as before, and long runs close to their true count', () => {
    expect(counter.count('Hello, world! How are you today?')).toBe(9);
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(2000);
    expect(counter.count(prose)).toBe(20_001);
    // 1,000 letters are 125 tokens whole; counted in pieces, about as many.
    expect(counter.count('a'.repeat(1000))).toBeGreaterThanOrEqual(125);
    expect(counter.count('a'.repeat(1000))).toBeLessThanOrEqual(140);
  });

  it('cuts without splitting a character in two', () => {
    const cut = counter.truncate('🙂'.repeat(5000), 200);
    expect(cut).toBe('🙂'.repeat(cut.length / 2));
  });
});

describe("the bot's counter, whose encoding loads after the start", () => {
  it('refuses to count before its first load(), loads once however many wait, then counts as the loaded one does', async () => {
    const deferred = deferredTokenCounter('gpt-4.1-mini');
    expect(() => deferred.count('hello')).toThrow(/before its encoding was loaded/);
    const waits = [deferred.load(), deferred.load()];
    expect(waits[0]).toBe(waits[1]);
    await Promise.all(waits);
    const loaded = await loadTokenCounter('gpt-4.1-mini');
    const text = 'The quick brown fox, 12,345 times: naïve café 🚀 <|endoftext|>';
    expect(deferred.count(text)).toBe(loaded.count(text));
    expect(deferred.truncate(text, 5)).toBe(loaded.truncate(text, 5));
    expect(deferred.encoding).toBe('o200k_base');
  });
});
