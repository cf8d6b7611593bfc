import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.ts';
import { liveAnswer } from '../../src/terminal/live-answer.ts';

const delta = (text: string): AgentEvent => ({ type: 'answer-delta', runId: 'r', step: 1, text });

function printed() {
  let out = '';
  return { live: liveAnswer((text) => (out += text), 'bot: '), out: () => out };
}

describe("the chat's live answer", () => {
  it('adds what is new of each delta to the line, and prints only what goes under an answer shown whole', () => {
    const { live, out } = printed();
    live.sink(delta('Two'));
    expect(out()).toBe('bot: Two');
    live.sink(delta('Two plus two'));
    live.sink(delta('Two plus two is four.'));
    live.finish('bot: Two plus two is four.', '\n     (tools: calculator)');
    expect(out()).toBe('bot: Two plus two is four.\n     (tools: calculator)\n');
  });

  it('prints the whole answer again when what was shown is not it, and a tool line below the answer begun', () => {
    const { live, out } = printed();
    live.sink(delta('Maybe'));
    live.line('  → calculator {"expression":"2+2"}');
    live.sink(delta('Four'));
    live.finish('bot: Four.', '');
    expect(out()).toBe('bot: Maybe\n  → calculator {"expression":"2+2"}\nbot: Four\nbot: Four.\n');
  });

  it('prints the outcome as it is when nothing was shown', () => {
    const { live, out } = printed();
    live.finish('bot: (failed) The model service is not answering right now.', '');
    expect(out()).toBe('bot: (failed) The model service is not answering right now.\n');
  });
});
