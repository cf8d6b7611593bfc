import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../src/agent/events.ts';
import type { ModelClient } from '../../src/agent/model-client.ts';
import { plainTextNudge } from '../../src/agent/turns/plain-text.ts';
import { defaultAgentSettings, runAgent } from '../../src/agent/run-agent.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { builtInTools } from '../../tools/index.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { runOnce, testContext } from '../support/agent-harness.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, text, toolCalls } from '../support/fake-model.ts';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

const toolMessages = (request: { messages: { role: string; content?: string | null; tool_call_id?: string }[] }) =>
  request.messages.filter((message) => message.role === 'tool');

describe('runAgent', () => {
  it('runs a tool, sends its result back, and ends with a validated final_answer', async () => {
    model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '2+3*4' }, id: 'call_calc' }), (request) => {
      expect(toolMessages(request)).toEqual([{ role: 'tool', tool_call_id: 'call_calc', content: '14' }]);
      return finalAnswer('2 + 3 × 4 = 14', ['calculator']);
    });

    const run = await runOnce(model, { input: 'Ada: what is 2+3*4?' });

    expect(run.status).toBe('answered');
    expect(run.answer).toEqual({ answer: '2 + 3 × 4 = 14', tools_used: ['calculator'] });
    expect(run.steps).toBe(2);
    expect(run.usage).toEqual({ promptTokens: 200, completionTokens: 40, totalTokens: 240 });
    const first = model.requests[0]!;
    expect(first.tool_choice).toBe('required');
    expect(first.temperature).toBe(0);
    expect(first.tools?.map((tool) => tool.function.name)).toEqual([
      'calculator',
      'current_time',
      'fetch_url',
      'final_answer',
    ]);
    expect(first.tools?.every((tool) => tool.function.strict === true)).toBe(true);
    expect(first.messages.map((message) => message.role)).toEqual(['system', 'user']);
  });

  it('emits typed events for every step, in order', async () => {
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '1+1' } }),
      finalAnswer('2', ['calculator']),
    );

    const run = await runOnce(model);

    expect(run.events.map((event) => event.type)).toEqual([
      'run-start',
      'model-call',
      'tool-call',
      'tool-result',
      'model-call',
      'final-answer',
      'run-end',
    ]);
    const modelCall = run.events.find((event) => event.type === 'model-call');
    expect(modelCall).toMatchObject({ step: 1, usage: { totalTokens: 120 }, toolChoice: 'required' });
    const result = run.events.find((event) => event.type === 'tool-result');
    expect(result).toMatchObject({ name: 'calculator', result: '2', step: 1 });
    expect(typeof (result as { durationMs: number }).durationMs).toBe('number');
    expect(run.events.at(-1)).toMatchObject({
      type: 'run-end',
      status: 'answered',
      steps: 2,
      usage: { totalTokens: 240 },
    });
  });

  it('runs the parallel calls of one turn concurrently and answers them in call order', async () => {
    let started = 0;
    let releaseAll: () => void = () => {};
    const bothStarted = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    const barrier = defineTool({
      name: 'barrier',
      description: 'Resolves only once two calls have started.',
      parameters: z.object({ label: z.string() }),
      async execute({ label }) {
        started += 1;
        if (started === 2) releaseAll();
        await bothStarted;
        return `done ${label}`;
      },
    });
    model.enqueue(
      toolCalls(
        { name: 'barrier', arguments: { label: 'a' }, id: 'call_a' },
        { name: 'barrier', arguments: { label: 'b' }, id: 'call_b' },
      ),
      (request) => {
        expect(toolMessages(request)).toEqual([
          { role: 'tool', tool_call_id: 'call_a', content: 'done a' },
          { role: 'tool', tool_call_id: 'call_b', content: 'done b' },
        ]);
        return finalAnswer('both done', ['barrier']);
      },
    );

    const run = await runOnce(model, { tools: buildToolRegistry([barrier]), settings: { toolTimeoutMs: 2_000 } });

    expect(run.status).toBe('answered');
  });

  it('runs at most MAX_TOOL_CALLS_PER_TURN calls and answers the rest with an error observation', async () => {
    const calls = ['1+1', '2+2', '3+3'].map((expression, index) => ({
      name: 'calculator',
      arguments: { expression },
      id: `call_${index}`,
    }));
    model.enqueue(toolCalls(...calls), (request) => {
      const replies = toolMessages(request);
      expect(replies.map((reply) => reply.tool_call_id)).toEqual(['call_0', 'call_1', 'call_2']);
      expect(replies[0]!.content).toBe('2');
      expect(replies[1]!.content).toBe('4');
      expect(replies[2]!.content).toMatch(/^Not executed: at most 2 tool calls/);
      return finalAnswer('done', ['calculator']);
    });

    const run = await runOnce(model, { settings: { maxToolCallsPerTurn: 2 } });

    expect(run.status).toBe('answered');
    expect(run.events.filter((event) => event.type === 'tool-error')).toMatchObject([
      { kind: 'not-executed', callId: 'call_2' },
    ]);
  });

  it('turns an unknown tool into an observation that lists the valid tools, and goes on', async () => {
    model.enqueue(toolCalls({ name: 'weather', arguments: {} }), (request) => {
      expect(toolMessages(request)[0]!.content).toBe(
        'Unknown tool "weather". The valid tools are: calculator, current_time, fetch_url.',
      );
      return finalAnswer('I have no weather tool.');
    });

    const run = await runOnce(model);

    expect(run.status).toBe('answered');
    expect(run.events.find((event) => event.type === 'tool-error')).toMatchObject({
      kind: 'unknown-tool',
      name: 'weather',
    });
  });

  it('turns arguments that are not JSON, or that fail the schema, into observations with the issues', async () => {
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: '{"expression": ' }),
      (request) => {
        expect(toolMessages(request)[0]!.content).toMatch(/^The arguments are not valid JSON \(/);
        return toolCalls({ name: 'calculator', arguments: { expr: '1+1' } });
      },
      (request) => {
        expect(toolMessages(request)[1]!.content).toBe(
          'Invalid arguments for calculator:\n- expression: Invalid input: expected string, received undefined\nFix them and call it again.',
        );
        return finalAnswer('giving up');
      },
    );

    const run = await runOnce(model);

    expect(run.status).toBe('answered');
    expect(
      run.events
        .filter((event) => event.type === 'tool-error')
        .map((event) => event.type === 'tool-error' && event.kind),
    ).toEqual(['invalid-arguments', 'invalid-arguments']);
  });

  it('sends final_answer arguments that fail validation back to the model, which retries', async () => {
    model.enqueue(toolCalls({ name: 'final_answer', arguments: { answer: '   ' } }), (request) => {
      const reply = toolMessages(request)[0]!.content!;
      expect(reply).toContain('answer: the answer must not be empty');
      expect(reply).toContain('tools_used: Invalid input: expected array, received undefined');
      return finalAnswer('Hello!');
    });

    const run = await runOnce(model);

    expect(run.status).toBe('answered');
    expect(run.answer?.answer).toBe('Hello!');
    expect(run.steps).toBe(2);
  });

  it('keeps in tools_used only the tools really called in the run', async () => {
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }),
      finalAnswer('42', ['web_search', 'calculator', 'calculator', 'current_time']),
    );

    const run = await runOnce(model);

    expect(run.answer?.tools_used).toEqual(['calculator']);
  });

  it('runs the other tools when final_answer comes beside them, and asks for the answer alone', async () => {
    model.enqueue(
      toolCalls(
        { name: 'calculator', arguments: { expression: '2*21' }, id: 'call_calc' },
        { name: 'final_answer', arguments: { answer: 'guess: 41', tools_used: [] }, id: 'call_final' },
      ),
      (request) => {
        expect(toolMessages(request)).toEqual([
          { role: 'tool', tool_call_id: 'call_calc', content: '42' },
          {
            role: 'tool',
            tool_call_id: 'call_final',
            content: expect.stringMatching(/^Not executed: call final_answer alone/),
          },
        ]);
        return finalAnswer('42', ['calculator']);
      },
    );

    const run = await runOnce(model);

    expect(run.answer).toEqual({ answer: '42', tools_used: ['calculator'] });
    expect(run.steps).toBe(2);
  });

  it('nudges once when the model answers in plain text, then takes plain text as the answer', async () => {
    model.enqueue(text('Hi there'), (request) => {
      expect(request.messages.at(-2)).toMatchObject({ role: 'assistant', content: 'Hi there' });
      expect(request.messages.at(-1)).toEqual({ role: 'user', content: plainTextNudge });
      return text('Hi there, again');
    });

    const run = await runOnce(model);

    expect(run.status).toBe('answered');
    expect(run.answer).toEqual({ answer: 'Hi there, again', tools_used: [] });
    expect(run.events.find((event) => event.type === 'final-answer')).toMatchObject({
      fallback: 'plain-text',
      callId: null,
    });
  });

  it('takes plain text at the last step as the answer at once: no step is left for a nudge', async () => {
    model.enqueue(text('Hi there'));

    const run = await runOnce(model, { settings: { maxSteps: 1 } });

    expect(run.status).toBe('answered');
    expect(run.answer).toEqual({ answer: 'Hi there', tools_used: [] });
    expect(model.requests).toHaveLength(1);
    expect(run.events.find((event) => event.type === 'final-answer')).toMatchObject({ fallback: 'plain-text' });
  });

  it('answers the nudge with a real final_answer when the model complies', async () => {
    model.enqueue(text('Hi'), finalAnswer('Hello, Ada.'));

    const run = await runOnce(model);

    expect(run.answer).toEqual({ answer: 'Hello, Ada.', tools_used: [] });
    expect(run.events.find((event) => event.type === 'final-answer')).toMatchObject({ fallback: null });
  });

  it('answers tool calls from servers that leave out the type or id, or send arguments as an object', async () => {
    model.enqueue(
      {
        body: {
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'loose-server',
          choices: [
            {
              index: 0,
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  { function: { name: 'calculator', arguments: { expression: '1+2' } } },
                  { id: 'call_no_args', type: 'function', function: { name: 'current_time' } },
                ],
              },
            },
          ],
        },
      },
      (request) => {
        const [call, noArgs] = request.messages.filter((message) => message.role === 'tool');
        expect(call!.content).toBe('3');
        expect(noArgs!.content).toBe(
          'Invalid arguments for current_time:\n- time_zone: Invalid input: expected string, received undefined\nFix them and call it again.',
        );
        return finalAnswer('3', ['calculator']);
      },
    );

    const run = await runOnce(model);

    expect(run.answer?.answer).toBe('3');
  });

  it('takes the first valid final_answer of a turn and answers the others as ignored', async () => {
    model.enqueue(
      toolCalls(
        { name: 'final_answer', arguments: { answer: 'first', tools_used: [] }, id: 'call_1' },
        { name: 'final_answer', arguments: { answer: 'second', tools_used: [] }, id: 'call_2' },
      ),
    );

    const run = await runOnce(model);

    expect(run.answer?.answer).toBe('first');
    expect(run.transcript.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'Answer delivered to the user.' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Ignored: an answer was already given in this turn.' },
    ]);
  });

  it('takes a valid final_answer beside other tools at the last step, where no later step could use them', async () => {
    model.enqueue(
      toolCalls(
        { name: 'calculator', arguments: { expression: '1+1' }, id: 'call_calc' },
        { name: 'final_answer', arguments: { answer: 'two', tools_used: ['calculator'] }, id: 'call_final' },
      ),
    );

    const run = await runOnce(model, { settings: { maxSteps: 1 } });

    expect(run.status).toBe('answered');
    expect(run.answer).toEqual({ answer: 'two', tools_used: [] });
    expect(run.events.find((event) => event.type === 'tool-error')).toMatchObject({
      callId: 'call_calc',
      kind: 'not-executed',
    });
    expect(run.events.some((event) => event.type === 'tool-call')).toBe(false);
  });

  it('nudges only once: an empty reply after the nudge ends the run with a clear message', async () => {
    model.enqueue(text(''), text(''));

    const run = await runOnce(model);

    expect(run.status).toBe('stopped');
    expect(run.stopReason).toBe('no-answer');
    expect(run.userMessage).toMatch(/replied without an answer/);
    expect(model.requests.at(-1)!.messages.filter((message) => message.content === plainTextNudge)).toHaveLength(1);
  });

  it('forgives two unreadable calls in a row again once the server has read a call', async () => {
    const rejected = { message: { role: 'assistant' as const, content: '<garbled call>' }, rejectedCall: 'unreadable' };
    const call = (name: string, args: object) => ({
      message: {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: `call-${name}`, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } },
        ],
      },
    });
    const replies = [
      rejected,
      rejected,
      call('calculator', { expression: '2+2' }),
      rejected,
      rejected,
      call('final_answer', { answer: '4', tools_used: ['calculator'] }),
    ];
    const scripted: ModelClient = {
      model: 'scripted',
      complete: async () => ({ usage: null, finishReason: 'stop', model: 'scripted', ...replies.shift()! }),
    };

    const run = await runAgent({
      model: scripted,
      systemPrompt: 's',
      history: [],
      input: [{ role: 'user', content: 'hi' }],
      tools: buildToolRegistry(builtInTools),
      context: testContext,
      settings: defaultAgentSettings,
    });

    expect(run.answer).toEqual({ answer: '4', tools_used: ['calculator'] });
    expect(replies).toEqual([]);
  });

  it('checks the signal between steps, even with a model client that ignores it', async () => {
    const controller = new AbortController();
    let calls = 0;
    // A client of our own interface that never looks at the signal: only the loop can stop here.
    const deaf: ModelClient = {
      model: 'deaf',
      complete: async () => {
        calls += 1;
        controller.abort();
        return {
          message: { role: 'assistant', content: 'thinking' },
          usage: null,
          finishReason: 'stop',
          model: 'deaf',
        };
      },
    };

    const run = await runAgent({
      model: deaf,
      systemPrompt: 's',
      history: [],
      input: [{ role: 'user', content: 'hi' }],
      tools: [],
      context: testContext,
      settings: defaultAgentSettings,
      signal: controller.signal,
    });

    expect(run.stopReason).toBe('aborted');
    expect(calls).toBe(1);
  });

  it('sends the function specs built at registration, not converted again per call', async () => {
    const tools = buildToolRegistry(builtInTools);
    const seen: unknown[][] = [];
    const recorder: ModelClient = {
      model: 'recorder',
      complete: async (request) => {
        seen.push([...request.tools]);
        return {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'c',
                type: 'function',
                function: { name: 'final_answer', arguments: '{"answer":"ok","tools_used":[]}' },
              },
            ],
          },
          usage: null,
          finishReason: 'tool_calls',
          model: 'recorder',
        };
      },
    };
    const run = () =>
      runAgent({
        model: recorder,
        systemPrompt: 's',
        history: [],
        input: [{ role: 'user', content: 'hi' }],
        tools,
        context: testContext,
        settings: defaultAgentSettings,
      });

    await run();
    await run();

    expect(seen[0]![0]).toBe(tools[0]!.spec);
    expect(seen[1]![0]).toBe(tools[0]!.spec);
  });

  it('ends with a failed result, not an exception, when the program itself fails', async () => {
    // No real path makes the program fail, so a model client of our own interface throws a bug.
    const buggy: ModelClient = {
      model: 'buggy',
      complete: async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'choices')");
      },
    };
    const events: AgentEvent[] = [];

    const run = await runAgent({
      model: buggy,
      systemPrompt: 'test',
      history: [],
      input: [{ role: 'user', content: 'hello' }],
      tools: [],
      context: testContext,
      settings: defaultAgentSettings,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'run-start') throw new Error('a broken sink');
      },
    });

    expect(run.status).toBe('failed');
    expect(run.userMessage).toMatch(/Something went wrong on my side/);
    expect(events.at(-1)).toMatchObject({
      type: 'run-end',
      status: 'failed',
      errorCode: 'internal',
      error: expect.stringContaining('TypeError'),
    });
  });
});
