import { setImmediate as turnOfTheLoop } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Store } from '../../db/store.ts';
import type { AgentEvent } from '../../src/agent/events.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { defaultAgentSettings, runAgent } from '../../src/agent/run-agent.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { conversationMemory } from '../../src/memory/conversation-memory.ts';
import { loadTokenCounter } from '../../src/memory/token-counter.ts';
import { startInstance } from '../../src/run-log/instance.ts';
import { writeBehind } from '../../src/run-log/write-behind.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { modelClientFor, testContext } from '../support/agent-harness.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { tempStore } from '../support/temp-store.ts';

const runId = 'run-1';
const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
const at = { runId, step: 1 };
const events = {
  start: { type: 'run-start', runId, conversationId: 'c', model: 'm', toolNames: [], at: new Date(0) },
  model: {
    type: 'model-call',
    ...at,
    toolChoice: 'required',
    message: { role: 'assistant', content: null, tool_calls: [call('a', 'add'), call('b', 'add')] },
    usage: null,
    finishReason: 'tool_calls',
    durationMs: 1,
  },
  answering: {
    type: 'model-call',
    ...at,
    toolChoice: 'required',
    message: { role: 'assistant', content: null, tool_calls: [call('f', 'final_answer')] },
    usage: null,
    finishReason: 'tool_calls',
    durationMs: 1,
  },
  talking: {
    type: 'model-call',
    ...at,
    toolChoice: 'required',
    message: { role: 'assistant', content: 'let me think' },
    usage: null,
    finishReason: 'stop',
    durationMs: 1,
  },
  callA: { type: 'tool-call', ...at, callId: 'a', name: 'add', arguments: '{}' },
  callB: { type: 'tool-call', ...at, callId: 'b', name: 'add', arguments: '{}' },
  resultA: { type: 'tool-result', ...at, callId: 'a', name: 'add', result: '1', durationMs: 1 },
  errorB: { type: 'tool-error', ...at, callId: 'b', name: 'add', kind: 'threw', error: 'no', durationMs: 1 },
  progress: { type: 'tool-progress', ...at, callId: 'a', name: 'add', progress: 1, total: 2, message: 'half way' },
  answer: {
    type: 'final-answer',
    ...at,
    callId: 'f',
    answer: { answer: 'done', tools_used: [] },
    fallback: null,
  },
} satisfies Record<string, AgentEvent>;

/** The batches a `writeBehind` sink writes, by event type. */
function recorded() {
  const batches: string[][] = [];
  const sink = writeBehind((written) => void batches.push(written.map((event) => event.type)), silentLogger);
  return { batches, sink };
}

describe('a run record written behind', () => {
  it('writes a tool call with the model call that asked for it, before the next event can run the tool', () => {
    const { batches, sink } = recorded();
    sink(events.start);
    sink(events.model);
    expect(batches).toEqual([['run-start']]);
    sink(events.callA);
    sink(events.callB);
    expect(batches).toEqual([['run-start'], ['model-call', 'tool-call'], ['tool-call']]);
  });

  it("writes a turn's outcomes together once the loop turns, and before whatever is written at once", async () => {
    const { batches, sink } = recorded();
    sink(events.callA);
    sink(events.callB);
    sink(events.resultA);
    sink(events.errorB);
    sink(events.progress);
    expect(batches).toEqual([['tool-call'], ['tool-call']]);
    await turnOfTheLoop();
    expect(batches.at(-1)).toEqual(['tool-result', 'tool-error']);

    sink(events.resultA);
    sink(events.model);
    sink(events.callA);
    expect(batches.at(-1)).toEqual(['tool-result', 'model-call', 'tool-call']);
    await turnOfTheLoop();
    expect(batches).toHaveLength(4);
  });

  it('writes a model call with its answer, or before the work in hand ends: ahead of a turn passed on at setImmediate', async () => {
    const { batches, sink } = recorded();
    sink(events.answering);
    sink(events.answer);
    expect(batches).toEqual([['model-call', 'final-answer']]);

    // The model's turn, released at setImmediate once a call returns (agent/limit-model-calls.ts),
    // is given to a run whose admission reads the tokens the reply spent.
    const another = recorded();
    let writtenAtRelease: string[][] = [];
    setImmediate(() => (writtenAtRelease = [...another.batches]));
    another.sink(events.talking);
    await turnOfTheLoop();
    expect(writtenAtRelease).toEqual([['model-call']]);
  });

  it('logs a write that fails, with its run, and goes on writing the next', async () => {
    const { logger, lines } = recordingLogger();
    const batches: string[][] = [];
    let fail = true;
    const sink = writeBehind((written) => {
      if (fail) throw new Error('disk full');
      batches.push(written.map((event) => event.type));
    }, logger);
    sink(events.resultA);
    await turnOfTheLoop();
    fail = false;
    sink(events.callA);
    expect(lines).toMatchObject([
      { level: 'error', msg: 'writing the run record failed', fields: { runId, events: 1 } },
    ]);
    expect(batches).toEqual([['tool-call']]);
  });
});

describe('a run recorded through conversation memory', () => {
  let model: ScriptedModel;
  let store: Store;
  let path: string;
  beforeEach(async () => {
    model = await startScriptedModel();
    ({ store, path } = tempStore());
  });
  afterEach(async () => {
    store.close();
    await model.close();
  });

  it("has a turn's results on disk before the next turn's tools run, and every row once it ends", async () => {
    const memory = conversationMemory(store, await loadTokenCounter('gpt-4.1-mini'), {
      tokenBudget: 8000,
      messageTokenCap: 1500,
    });
    const instance = startInstance(store, 'test');
    const conversation = store.conversations.ensure({
      key: 'terminal:behind',
      title: 'behind',
      guildId: null,
      channelId: null,
      startedById: 'u',
      startedByName: 'Ada',
    });
    const reader = new BetterSqlite3(path, { readonly: true });
    const add = defineTool({
      name: 'add',
      description: 'a + b',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    });
    let seen: unknown[] = [];
    const peek = defineTool({
      name: 'peek',
      description: 'Looks at the step log from another connection.',
      parameters: z.object({}),
      execute() {
        seen = reader.prepare('SELECT kind, status, tool_name, result FROM steps ORDER BY sequence').all();
        return 'looked';
      },
    });
    model.enqueue(
      toolCalls({ name: 'add', arguments: { a: 1, b: 2 } }, { name: 'add', arguments: { a: 3, b: 4 } }),
      toolCalls({ name: 'peek', arguments: {} }),
      finalAnswer('10', ['add']),
    );
    const triggerIds = [
      memory.recordUserMessage(conversation, {
        authorId: 'u',
        authorName: 'Ada',
        content: 'sums',
        discordMessageId: null,
      })!,
    ];
    const { history, input } = memory.loadWindow(conversation.id, triggerIds);

    const result = await runAgent({
      model: modelClientFor(model),
      systemPrompt: 'test',
      history,
      input,
      tools: buildToolRegistry([add, peek]),
      context: testContext,
      settings: defaultAgentSettings,
      onEvent: memory.runSink(conversation.id, instance.id, { triggerIds }, silentLogger),
    });

    expect(seen).toEqual([
      { kind: 'model-call', status: 'ok', tool_name: null, result: null },
      { kind: 'tool-call', status: 'ok', tool_name: 'add', result: '3' },
      { kind: 'tool-call', status: 'ok', tool_name: 'add', result: '7' },
      { kind: 'model-call', status: 'ok', tool_name: null, result: null },
      { kind: 'tool-call', status: 'started', tool_name: 'peek', result: null },
    ]);
    // Read right as runAgent returns, as the bot does: the run's end and its answer are there.
    expect(store.runs.byId(result.runId)).toMatchObject({ status: 'answered' });
    expect(store.steps.ofRun(result.runId).map((step) => [step.kind, step.status])).toEqual([
      ['model-call', 'ok'],
      ['tool-call', 'ok'],
      ['tool-call', 'ok'],
      ['model-call', 'ok'],
      ['tool-call', 'ok'],
      ['model-call', 'ok'],
      ['final-answer', 'ok'],
    ]);
    expect(memory.loadWindow(conversation.id, []).history.at(-1)).toEqual({ role: 'assistant', content: '10' });
    reader.close();
    instance.stop();
  });
});
