/**
 * Streamed replies through the real client and loop: the answer told as it is written, the reply
 * put back together exactly as a whole one, and a server that will not stream read whole instead.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerDeltaEvent } from '../../src/agent/events.ts';
import { modelClientFor, runOnce } from '../support/agent-harness.ts';
import { answer, call } from '../support/model-servers/brain.ts';
import * as quirks from '../support/model-servers/quirks.ts';
import { type FakeModelServer, finalAnswer, startFakeModelServer, startScriptedModel } from '../support/fake-model.ts';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const deltas = (events: { type: string }[]) =>
  events.filter((event): event is AnswerDeltaEvent => event.type === 'answer-delta').map((event) => event.text);
const longAnswer = 'Four. "Quoted", a \\ backslash, café and 😀, then a new line:\nDone.';

describe('streamed answers', () => {
  it('tells the answer as it grows, each time a prefix of the answer taken, and reads the rest as a whole reply', async () => {
    server = await startFakeModelServer(quirks.compliant);
    server.enqueue(call('calculator', { expression: '2+2' }), answer(longAnswer, ['calculator']));
    const run = await runOnce(server, { streamAnswers: true });

    expect(run.answer).toEqual({ answer: longAnswer, tools_used: ['calculator'] });
    const shown = deltas(run.events);
    expect(shown.length).toBeGreaterThan(3);
    expect(shown.at(-1)).toBe(longAnswer);
    for (const [index, text] of shown.entries()) {
      expect(longAnswer.startsWith(text)).toBe(true);
      if (index > 0) expect(text.length).toBeGreaterThan(shown[index - 1]!.length);
    }
    expect(server.requests.every((request) => request.stream === true)).toBe(true);
    expect(server.requests[0]!.stream_options).toEqual({ include_usage: true });
    // The calculator's call was put back together from its pieces, and its usage counted from the last chunk.
    expect(run.events.find((event) => event.type === 'tool-result')).toMatchObject({ name: 'calculator', result: '4' });
    expect(run.usage).toEqual({ promptTokens: 20, completionTokens: 10, totalTokens: 30 });
  });

  it('the text protocol: an answer written in a <tool_call> block is told as it is written too', async () => {
    server = await startFakeModelServer(quirks.compliant);
    server.enqueue(call('calculator', { expression: '2+2' }), answer(longAnswer, ['calculator']));
    const run = await runOnce(server, { streamAnswers: true, client: { toolProtocol: 'text' } });

    expect(run.answer).toEqual({ answer: longAnswer, tools_used: ['calculator'] });
    expect(server.requests.map((request) => [request.stream, request.tools])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);
    const shown = deltas(run.events);
    expect(shown.length).toBeGreaterThan(3);
    expect(shown.at(-1)).toBe(longAnswer);
    for (const text of shown) expect(longAnswer.startsWith(text)).toBe(true);
  });

  it('a model that writes its calls as <tool_call> text in the native protocol: its answer is told too', async () => {
    server = await startFakeModelServer(quirks.hermesCallInContent);
    server.enqueue(answer('Written as text.'));
    const run = await runOnce(server, { streamAnswers: true });
    expect(run.answer?.answer).toBe('Written as text.');
    expect(deltas(run.events).at(-1)).toBe('Written as text.');
  });

  it('Ollama: a call sent whole in one chunk is told once, whole', async () => {
    server = await startFakeModelServer(quirks.ollamaIgnoresToolChoice);
    server.enqueue(answer('Whole.'));
    const run = await runOnce(server, { streamAnswers: true, client: { provider: 'ollama' } });
    expect(run.answer?.answer).toBe('Whole.');
    expect(deltas(run.events)).toEqual(['Whole.']);
  });

  it('a server that will not stream with tools is asked again without a stream, and that is remembered', async () => {
    server = await startFakeModelServer(quirks.llamacppNoStreamWithTools);
    server.enqueue(call('calculator', { expression: '1+1' }), answer('Two.'));
    const run = await runOnce(server, { streamAnswers: true, client: { maxRetries: 0, provider: 'generic' } });
    expect(run.answer?.answer).toBe('Two.');
    expect(server.requests.map((request) => request.stream === true)).toEqual([true, false, false]);
    expect(deltas(run.events)).toEqual([]);
  });

  it('a server that answers a streamed request whole (it ignores `stream`) is asked again without; twice in a row, that is remembered', async () => {
    const scripted = await startScriptedModel();
    try {
      // Sent as text, the completion goes out as JSON, not as events: as a server that ignores `stream`.
      const ignored = { body: JSON.stringify(finalAnswer('Ignored.').body) };
      scripted.enqueue(ignored, finalAnswer('Whole.'), ignored, finalAnswer('Again.'), finalAnswer('Still whole.'));
      const model = modelClientFor(scripted);
      const run = await runOnce(scripted, { streamAnswers: true, model });
      expect(run.answer?.answer).toBe('Whole.');
      expect(run.events.find((event) => event.type === 'model-call')).toBeDefined();
      expect((await runOnce(scripted, { streamAnswers: true, model })).answer?.answer).toBe('Again.');
      expect((await runOnce(scripted, { streamAnswers: true, model })).answer?.answer).toBe('Still whole.');
      expect(scripted.requests.map((request) => (request as { stream?: boolean }).stream === true)).toEqual([
        true,
        false,
        true,
        false,
        false,
      ]);
    } finally {
      await scripted.close();
    }
  });

  it('without streamAnswers, nothing is streamed', async () => {
    server = await startFakeModelServer(quirks.compliant);
    server.enqueue(answer('Plain.'));
    const run = await runOnce(server);
    expect(run.answer?.answer).toBe('Plain.');
    expect(server.requests[0]!.stream).toBeUndefined();
    expect(deltas(run.events)).toEqual([]);
  });
});
