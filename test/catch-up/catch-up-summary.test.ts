/**
 * The map and reduce of src/catch-up/catch-up-summary.ts with the memory's real token counter and a
 * model that records what it is asked: every call reads at most the window, the pieces' summaries
 * are merged in rounds until one is left, and a call that fails leaves the calls made before it
 * counted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest, ModelResponse } from '../../src/agent/model-client.ts';
import { type ReadMessage, sumUpMessages } from '../../src/catch-up/catch-up-summary.ts';
import type { CatchUpCall } from '../../db/catch-up-runs.ts';
import { deferredTokenCounter } from '../../src/memory/token-counter.ts';

const counter = deferredTokenCounter('gpt-4o');
beforeAll(() => counter.load());

const messages: ReadMessage[] = Array.from({ length: 120 }, (_, index) => ({
  id: String(1000 + index),
  authorId: index % 2 ? 'a' : 'b',
  authorName: index % 2 ? 'Ana' : 'Bo',
  at: Date.UTC(2026, 10, 29, 9, index % 60),
  text: `the release moves to Friday, point ${index}`,
}));

/** A model that writes `summary` (a long one: merges must go in rounds) and keeps each request. */
function recordingModel(summary: string, failAt = Infinity) {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      requests.push(request);
      if (requests.length === failAt) throw new Error('the server went away');
      return {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c', type: 'function', function: { name: 'write_catch_up', arguments: JSON.stringify({ summary }) } },
          ],
        },
        usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
        finishReason: 'tool_calls',
        model: 'm',
      };
    },
  };
}

/** A request message's words (this model's messages are text). */
const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));
const tokensOf = (request: ModelRequest) =>
  counter.count(request.messages.map((message) => textOf(message.content)).join('\n'));

describe('sumUpMessages', () => {
  it('reads at most the window per call, numbers the messages with their authors, and merges in rounds down to one', async () => {
    const model = recordingModel(`A summary of this part (#1). ${'More words here. '.repeat(40)}`);
    const budget = 900;
    const summary = await sumUpMessages({ model, budget, counter, signal: new AbortController().signal }, messages);
    expect(summary).toContain('A summary of this part');
    const transcript = model.requests.map((request) => textOf(request.messages.at(-1)?.content)).join('\n');
    expect(transcript).toContain('#1 Bo: (09:00 UTC) the release moves to Friday, point 0');
    expect(transcript).toContain('#120 Ana: ');
    for (const request of model.requests) expect(tokensOf(request)).toBeLessThanOrEqual(budget);
    const merges = model.requests.filter((request) => textOf(request.messages.at(-1)?.content).startsWith('Part 1:'));
    expect(model.requests.length - merges.length).toBeGreaterThan(2);
    expect(merges.length).toBeGreaterThan(1);
  });

  it('leaves the calls made before a failing one in `calls`', async () => {
    const model = recordingModel('Short (#1).', 3);
    const calls: CatchUpCall[] = [];
    const signal = new AbortController().signal;
    await expect(sumUpMessages({ model, budget: 900, counter, signal }, messages, calls)).rejects.toThrow('went away');
    expect(calls.map((call) => call.note.replace(/ of \d+$/, ''))).toEqual(['piece 1', 'piece 2']);
    expect(calls.reduce((sum, call) => sum + call.promptTokens, 0)).toBe(20);
  });
});
