/**
 * The fake model's own contract, mode by mode (test/support/fake-model.ts): the scripted and quirk
 * modes fail the test on a request nobody scripted and on steps left over, and record what they
 * got; the bench mode plays its three turns; the echo mode names the question it answers.
 */
import { describe, expect, it } from 'vitest';
import {
  finalAnswer,
  startBenchModel,
  startEchoModel,
  startFakeModelServer,
  startScriptedModel,
} from '../support/fake-model.ts';
import { answer } from '../support/model-servers/brain.ts';
import { compliant } from '../support/model-servers/quirks.ts';

const chat = (messages: object[], extra: object = {}) => ({
  model: 'test-model',
  messages,
  tools: [{ type: 'function', function: { name: 'final_answer', parameters: { type: 'object' } } }],
  tool_choice: 'required',
  ...extra,
});

async function post(baseURL: string, body: object, path = '/chat/completions') {
  const response = await fetch(`${baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const question = [{ role: 'user', content: 'hi' }];

describe('the fake model', () => {
  it('scripted: answers in order, records the requests, and fails the test on a request beyond the script', async () => {
    const model = await startScriptedModel();
    model.enqueue(finalAnswer('One.'));
    const first = await post(model.baseURL, chat(question));
    expect(first.body.choices[0].message.tool_calls[0].function.arguments).toBe('{"answer":"One.","tools_used":[]}');
    expect((await post(model.baseURL, chat(question))).status).toBe(500);
    expect(model.requests).toHaveLength(2);
    await expect(model.close()).rejects.toThrow(/unexpected request 2: the script is empty/);
  });

  it('scripted: fails the test on replies left over, and on another route', async () => {
    const model = await startScriptedModel();
    model.enqueue(finalAnswer('Never asked.'));
    expect((await post(model.baseURL, {}, '/embeddings')).status).toBe(404);
    await expect(model.close()).rejects.toThrow(/unexpected POST \/v1\/embeddings[\s\S]*1 scripted replies were never/);
  });

  it('quirks: renders the intent, and fails the test on steps left over', async () => {
    const server = await startFakeModelServer(compliant);
    server.enqueue(answer('Rendered.'), answer('Left over.'));
    const reply = await post(server.baseURL, chat(question));
    expect(reply.body.choices[0].message.tool_calls[0].function.name).toBe('final_answer');
    expect(server.requests).toHaveLength(1);
    await expect(server.close()).rejects.toThrow(/1 scripted steps were never requested/);
  });

  it("quirks, llama.cpp's grammar: a pattern group resets the connection, a bound over 2000 is a 500, 2000 is answered", async () => {
    const server = await startFakeModelServer(compliant, { grammar: 'llama.cpp' });
    const withParameters = (parameters: object) => ({
      tools: [{ type: 'function', function: { name: 'final_answer', parameters } }],
    });
    const string = (keywords: object) => ({ type: 'object', properties: { s: { type: 'string', ...keywords } } });
    await expect(post(server.baseURL, chat(question, withParameters(string({ pattern: '^(?:a)$' }))))).rejects.toThrow(
      'fetch failed',
    );
    const refused = await post(server.baseURL, chat(question, withParameters(string({ maxLength: 2001 }))));
    expect(refused).toEqual({
      status: 500,
      body: { error: { code: 500, message: 'Failed to parse input at pos 0', type: 'server_error' } },
    });
    server.enqueue(answer('Within.'));
    const within = await post(
      server.baseURL,
      chat(question, withParameters(string({ maxLength: 2000, pattern: '^a$' }))),
    );
    expect(within.body.choices[0].message.tool_calls[0].function.name).toBe('final_answer');
    await server.close();
  });

  it('bench: plays add and multiply, then add, then the final answer from the last result', async () => {
    const model = await startBenchModel();
    const names = (reply: { body: Record<string, any> }) =>
      reply.body.choices[0].message.tool_calls.map((call: { function: { name: string } }) => call.function.name);
    expect(names(await post(model.baseURL, chat(question)))).toEqual(['add', 'multiply']);
    const results = [
      { role: 'tool', tool_call_id: 'a', content: '5' },
      { role: 'tool', tool_call_id: 'b', content: '20' },
    ];
    expect(names(await post(model.baseURL, chat([...question, ...results])))).toEqual(['add']);
    const last = await post(model.baseURL, chat([...question, ...results, { role: 'tool', content: '25' }]));
    expect(last.body.choices[0].message.tool_calls[0].function.arguments).toContain('"answer":"25"');
    await model.close();
  });

  it('echo: answers each question by its tag, streamed or whole, and counts', async () => {
    const model = await startEchoModel({ latencyMs: 1, streamPieces: 3 });
    const whole = await post(model.baseURL, chat([{ role: 'user', content: 'Ada: [t1m1] hi' }]));
    expect(whole.body.choices[0].message.tool_calls[0].function.arguments).toContain('Answered t1m1.');
    const streamed = await fetch(`${model.baseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(chat([{ role: 'user', content: '[t2m1]' }], { stream: true })),
    });
    const events = (await streamed.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const pieces = events
      .slice(0, -1)
      .map((event) => JSON.parse(event.slice('data: '.length)) as { choices: { delta: Record<string, any> }[] })
      .map((chunk) => chunk.choices[0]?.delta.tool_calls?.[0].function.arguments ?? '');
    expect(pieces.filter(Boolean)).toHaveLength(3);
    expect(JSON.parse(pieces.join(''))).toEqual({ answer: 'Answered t2m1.', tools_used: [] });
    expect(model.counts()).toMatchObject({ requests: 2, maxInFlight: 1 });
    expect(Object.keys(model.counts().arrivals)).toEqual(['t1m1', 't2m1']);
    await model.close();
  });
});
