import { describe, expect, it } from 'vitest';
import { answerReader } from '../../src/agent/answer-stream.ts';

/** Every way of cutting `text` in two, and cutting it into pieces of one code unit each. */
function cuts(text: string): string[][] {
  const twoPieces = Array.from({ length: text.length + 1 }, (_, at) => [text.slice(0, at), text.slice(at)]);
  return [...twoPieces, Array.from({ length: text.length }, (_, at) => text[at]!)];
}

/** Reads `pieces` in order; checks that each answer shown is a prefix of the whole one; returns the last. */
function readAll(pieces: readonly string[], whole: string): string {
  const reader = answerReader();
  for (const piece of pieces) {
    const shown = reader.push(piece);
    if (shown !== null) expect(whole.startsWith(shown), `${JSON.stringify(shown)} is not a prefix`).toBe(true);
  }
  return reader.text;
}

const cases: Record<string, string> = {
  plain: '{"answer": "It is 4.", "tools_used": ["calculator"]}',
  'answer after tools_used': '{"tools_used": ["calculator", "web_search"], "answer": "Later."}',
  escapes: String.raw`{"answer": "a \"quote\", a \\ backslash, a \/ slash,\nnew line\ttab \b\f\r", "tools_used": []}`,
  'unicode escapes and a surrogate pair': String.raw`{"answer": "caf\u00e9 \ud83d\ude00 done", "tools_used": []}`,
  'raw emoji and accents': '{"answer": "café 😀 naïve — ok", "tools_used": []}',
  'nested values before it': '{"notes": {"a": [1, {"b": "}\\"]"}], "c": null}, "n": -1.5e3, "t": true, "answer": "x"}',
  'a key with an escape': '{"ans\\"wer": "not this", "answer": "this"}',
  'no space': '{"answer":"tight","tools_used":[]}',
  'code fence': '{"answer": "```ts\\nconst a = 1;\\n```\\nDone.", "tools_used": []}',
};

describe('the answer read out of streamed final_answer arguments', () => {
  for (const [name, json] of Object.entries(cases)) {
    it(`${name}: whatever the cut, the answer JSON.parse reads, shown only by prefixes`, () => {
      const whole = (JSON.parse(json) as { answer: string }).answer;
      for (const pieces of cuts(json)) expect(readAll(pieces, whole)).toBe(whole);
    });
  }

  it('shows the answer as it grows, and says when it is complete', () => {
    const reader = answerReader();
    expect(reader.push('{"tools_used": [], "ans')).toBeNull();
    expect(reader.push('wer": "Hel')).toBe('Hel');
    expect(reader.complete).toBe(false);
    expect(reader.push('lo')).toBe('Hello');
    expect(reader.push('\\')).toBeNull(); // half an escape is held back
    expect(reader.push('n"')).toBe('Hello\n');
    expect(reader.complete).toBe(true);
    expect(reader.push(', "answer": "ignored"}')).toBeNull();
  });

  it('holds back half a surrogate pair until the other half comes', () => {
    const reader = answerReader();
    reader.push('{"answer": "a\\ud83d');
    expect(reader.text).toBe('a');
    reader.push('\\ude00"}');
    expect(reader.text).toBe('a😀');
  });

  it('reads nothing from arguments without an answer, or not an object', () => {
    for (const json of ['{"tools_used": ["x"]}', '[]', '"answer"', '{"answer": 42}', '{"nested": {"answer": "no"}}']) {
      const reader = answerReader();
      reader.push(json);
      expect(reader.text, json).toBe('');
    }
  });
});
