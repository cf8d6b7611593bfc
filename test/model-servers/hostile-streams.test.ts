/**
 * Streamed replies a broken or hostile server sends, read by the real openai client and the real
 * loop from the scripted model: events a proxy joined, calls that never got a name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recordsInMemory } from '../../src/model-servers/server-fixes.ts';
import { modelClientFor, runOnce } from '../support/agent-harness.ts';
import { chunkEvent, eventStream, finalAnswerEvents, withoutBlankLines } from '../support/hostile-streams.ts';
import { finalAnswer, type ScriptedModel, startScriptedModel } from '../support/scripted-model.ts';

let scripted: ScriptedModel | undefined;
afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
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
});
