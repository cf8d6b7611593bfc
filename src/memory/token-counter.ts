/**
 * Token counts for the memory window, with gpt-tokenizer (its encodings ship in the package: no
 * download). Models it does not know, such as local ones, fall back to o200k_base: a count that
 * is close is all a budget needs.
 */

export type EncodingName = 'o200k_base' | 'cl100k_base';

export interface TokenCounter {
  readonly encoding: EncodingName;
  count(text: string): number;
  /** The longest start of `text` of at most `maxTokens` tokens. */
  truncate(text: string, maxTokens: number): string;
}

/** GPT-4 and GPT-3.5 use cl100k_base; GPT-4o, 4.1, 5, the o-series and unknown models o200k_base. */
export function encodingForModel(model: string): EncodingName {
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
    count: (text) => api.countTokens(text, asText),
    truncate(text, maxTokens) {
      const tokens = api.encode(text, asText);
      return tokens.length <= maxTokens ? text : api.decode(tokens.slice(0, maxTokens));
    },
  };
}
