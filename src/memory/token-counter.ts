/**
 * Token counts for the memory window, with gpt-tokenizer (its encodings ship in the package: no
 * download). Models it does not know, such as local ones, fall back to o200k_base: a count that
 * is close is all a budget needs.
 */
import { safeCutIndex } from '../text/truncate.ts';

type EncodingName = 'o200k_base' | 'cl100k_base';

export interface TokenCounter {
  readonly encoding: EncodingName;
  /**
   * Resolves once `count` and `truncate` may be used (loading the encoding the first time it is
   * called, for a counter made by `deferredTokenCounter`).
   */
  load(): Promise<void>;
  count(text: string): number;
  /** The longest start of `text` of at most `maxTokens` tokens. */
  truncate(text: string, maxTokens: number): string;
}

/** GPT-4 and GPT-3.5 use cl100k_base; GPT-4o, 4.1, 5, the o-series and unknown models o200k_base. */
function encodingForModel(model: string): EncodingName {
  const name = model.toLowerCase().replace(/^.*\//, '');
  if (/^gpt-(4|3\.5)(?!o|\.)/.test(name)) return 'cl100k_base';
  return 'o200k_base';
}

/**
 * Special tokens spelled out in a message ("<|endoftext|>") are text to the API, so they are counted
 * as text; the library's default would throw, and lose the message that contains one.
 */
const asText = { disallowedSpecial: new Set<string>() };

/** Loads the model's encoding (about a quarter of a second, once per process). */
export async function loadTokenCounter(model: string): Promise<TokenCounter> {
  const encoding = encodingForModel(model);
  const api =
    encoding === 'cl100k_base'
      ? await import('gpt-tokenizer/encoding/cl100k_base')
      : await import('gpt-tokenizer/encoding/o200k_base');
  return {
    encoding,
    load: () => Promise.resolve(),
    count: (text) => pieces(text).reduce((sum, piece) => sum + api.countTokens(piece, asText), 0),
    truncate(text, maxTokens) {
      const tokens: number[] = [];
      for (const piece of pieces(text)) {
        // Appended in place: concatenating would copy the whole list at each piece (quadratic).
        for (const token of api.encode(piece, asText)) tokens.push(token);
        if (tokens.length > maxTokens) break;
      }
      if (tokens.length <= maxTokens) return text;
      let cut = api.decode(tokens.slice(0, maxTokens));
      // A cut inside a character decodes to U+FFFD: leave the broken character out.
      while (cut.endsWith('\uFFFD') && !text.startsWith(cut)) cut = cut.slice(0, -1);
      return cut;
    },
  };
}

/**
 * A counter whose encoding is loaded by its first `load()`, not before: the bot's start does not
 * wait for the quarter of a second it takes (its compiling and tables were a third of the time to
 * ready, BENCHMARKS.md). Whatever counts waits for `load()` first; counting before is a bug, and throws.
 */
export function deferredTokenCounter(model: string): TokenCounter {
  let loaded: TokenCounter | null = null;
  let loading: Promise<void> | null = null;
  const use = (): TokenCounter => {
    if (loaded === null) throw new Error('the token counter was used before its encoding was loaded');
    return loaded;
  };
  return {
    encoding: encodingForModel(model),
    load: () =>
      (loading ??= loadTokenCounter(model).then((counter) => {
        loaded = counter;
      })),
    count: (text) => use().count(text),
    truncate: (text, maxTokens) => use().truncate(text, maxTokens),
  };
}

/** The longest run of letters, of other symbols or of white space that the tokenizer sees whole. */
const maxRun = 64;
const longRun = new RegExp(`[\\p{L}\\p{M}]{${maxRun},}|[^\\s\\p{L}\\p{M}\\p{N}]{${maxRun},}|\\s{${maxRun},}`, 'gu');

/**
 * The text in pieces the tokenizer handles in linear time. Byte-pair merging is quadratic in the
 * length of a run it sees whole (200,000 letters without a space took 50 s, blocking the process),
 * so a longer run is cut every `maxRun` characters, which adds at most a token per cut. Text
 * without such a run is one piece, counted exactly as before.
 */
function pieces(text: string): string[] {
  if (text.length < maxRun) return [text];
  const result: string[] = [];
  let start = 0;
  for (const match of text.matchAll(longRun)) {
    if (match.index > start) result.push(text.slice(start, match.index));
    const end = match.index + match[0].length;
    for (let at = match.index; at < end;) {
      const next = Math.min(safeCutIndex(text, at + maxRun), end);
      result.push(text.slice(at, next));
      at = next;
    }
    start = end;
  }
  if (start < text.length) result.push(text.slice(start));
  return result;
}
