/**
 * Streamed replies a broken or hostile server sends, read by the real openai client and the real
 * loop from the scripted model: events a proxy joined, calls that never got a name, a stream that
 * stalls, and one that never ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/agent/model-error.ts';
import { maxResponseBytes } from '../../src/model-servers/openai-transport.ts';
import { recordsInMemory } from '../../src/model-servers/server-records.ts';
import { modelClientFor, runOnce } from '../support/agent-harness.ts';
import { chunkEvent, eventStream, finalAnswerEvents, withoutBlankLines } from '../support/hostile-streams.ts';
import { finalAnswer, type ScriptedModel, startScriptedModel } from '../support/fake-model.ts';

let scripted: ScriptedModel | undefined;
afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
});

/** What a stalled stream waits for: the end of the test. */
let endStall!: () => void;
let stalledUntilTheEnd = new Promise<void>((resolve) => (endStall = resolve));
afterEach(() => {
  endStall();
  stalledUntilTheEnd = new Promise<void>((resolve) => (endStall = resolve));
});

const streamed = () => scripted!.requests.map((request) => (request as { stream?: boolean }).stream === true);

describe('hostile streamed replies', () => {
  it('one reply whose events came without blank lines is read whole once; streaming is not turned off for it', async () => {
    scripted = await startScriptedModel();
    const records = recordsInMemory();
    const model = modelClientFor(scripted, {}, { records });
    scripted.enqueue(withoutBlankLines(finalAnswerEvents('Joined.')), finalAnswer('Whole.'), finalAnswer('Streamed.'));
    expect((await runOnce(scripted, { streamAnswers: true, model })).answer?.answer).toBe('Whole.');
    const next = await runOnce(scripted, { streamAnswers: true, model });
    expect(next.answer?.answer).toBe('Streamed.');
    expect(next.events.some((event) => event.type === 'answer-delta')).toBe(true);
    expect(streamed()).toEqual([true, false, true]);
    expect(records.read(scripted.baseURL, 'test-model')?.learned.streaming).toBeUndefined();
  });

  it('a call placed at index 127 is one call: the 127 places before it, never named, are dropped', async () => {
    scripted = await startScriptedModel();
    scripted.enqueue(eventStream(finalAnswerEvents('Placed far.', 127)));
    const run = await runOnce(scripted, { streamAnswers: true });
    expect(run.answer?.answer).toBe('Placed far.');
    expect(run.events.filter((event) => event.type === 'tool-error')).toEqual([]);
    const [reply] = run.events.flatMap((event) => (event.type === 'model-call' ? [event.message] : []));
    expect(reply?.tool_calls?.map((call) => call.function.name)).toEqual(['final_answer']);
  });

  it('a stream that stalls longer than OPENAI_TIMEOUT_SECONDS between two chunks is given up and asked for once more', async () => {
    scripted = await startScriptedModel();
    const events = finalAnswerEvents('Never finished.');
    scripted.enqueue(
      {
        bodyPieces: async function* () {
          yield events.slice(0, 3).join('');
          await stalledUntilTheEnd; // Headers and a first chunk, then nothing.
        },
      },
      finalAnswer('Asked again.'),
    );
    const run = await runOnce(scripted, {
      streamAnswers: true,
      client: { timeoutSeconds: 1 },
      settings: { runTimeoutMs: 20_000 },
    });
    expect(run.answer?.answer).toBe('Asked again.');
    expect(streamed()).toEqual([true, true]);
  });

  it('a stream is read up to maxResponseBytes, as a whole reply is: past it, the reply is refused and not asked for again', async () => {
    scripted = await startScriptedModel();
    const piece = chunkEvent({ content: 'x'.repeat(64 * 1024) });
    let sent = 0;
    scripted.enqueue({
      bodyPieces: async function* () {
        for (; sent < 3 * maxResponseBytes; sent += piece.length) yield piece;
        yield 'data: [DONE]\n\n';
      },
    });
    const run = await runOnce(scripted, { streamAnswers: true });
    expect(run.status).toBe('failed');
    expect(run.error).toBeInstanceOf(ModelError);
    expect((run.error as ModelError).reply?.code).toBe('response_too_large');
    expect(scripted.requests).toHaveLength(1);
    // Reading stopped at the cap: the server could not send all it meant to.
    expect(sent).toBeLessThan(2 * maxResponseBytes);
  });
});
