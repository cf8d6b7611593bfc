import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import BetterSqlite3 from 'better-sqlite3';
import { openStore, type Store } from '../../db/store.ts';
import { windowQuery } from '../../db/messages.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { defaultAgentSettings, runAgent } from '../../src/agent/run-agent.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { conversationMemory } from '../../src/memory/conversation-memory.ts';
import { loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';
import { cancelledObservation } from '../../src/memory/window.ts';
import { startInstance } from '../../src/run-log/instance.ts';
import { builtInTools } from '../../tools/index.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { modelClientFor, testContext } from '../support/agent-harness.ts';
import { chatRequestProblems } from '../support/openai-conformance.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';
import { tempStore } from '../support/temp-store.ts';

let model: ScriptedModel;
let store: Store;
let path: string;
let counter: TokenCounter;
beforeEach(async () => {
  model = await startScriptedModel();
  ({ store, path } = tempStore());
  counter = await loadTokenCounter('gpt-4.1-mini');
});
afterEach(async () => {
  store.close();
  await model.close();
});

const settings = { tokenBudget: 8000, messageTokenCap: 1500 };
const ada = { authorId: 'u1', authorName: 'Ada', discordMessageId: null };

/** One exchange in a conversation, through the real sinks, as the chat and the bot do it. */
async function exchange(
  memory: ReturnType<typeof conversationMemory>,
  conversationId: number,
  instanceId: string,
  text: string,
  tools = buildToolRegistry(builtInTools),
) {
  const conversation = store.conversations.byId(conversationId)!;
  const triggerIds = [memory.recordUserMessage(conversation, { ...ada, content: text })!];
  const { history, input } = memory.loadWindow(conversationId, triggerIds);
  return runAgent({
    model: modelClientFor(model),
    systemPrompt: 'test',
    history,
    input,
    tools,
    context: testContext,
    settings: defaultAgentSettings,
    onEvent: memory.runSink(conversationId, instanceId, { triggerIds }, silentLogger),
  });
}

const newConversation = (key = 'terminal:test') =>
  store.conversations.ensure({
    key,
    title: key,
    guildId: null,
    channelId: null,
    startedById: 'u1',
    startedByName: 'Ada',
  });

describe('conversation memory', () => {
  it('writes a finished call to the step log and to memory in one transaction, so no crash can split them', async () => {
    const memory = conversationMemory(store, counter, settings);
    const instance = startInstance(store, 'chat');
    const conversation = newConversation();
    const inTransaction: Record<string, boolean[]> = { stepCompleted: [], resultRemembered: [] };
    const complete = store.steps.complete.bind(store.steps);
    const insert = store.messages.insert.bind(store.messages);
    store.steps.complete = (...args) => (inTransaction.stepCompleted!.push(store.db.inTransaction), complete(...args));
    store.messages.insert = (...args) => (
      inTransaction.resultRemembered!.push(store.db.inTransaction),
      insert(...args)
    );
    model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), finalAnswer('42.'));

    await exchange(memory, conversation.id, instance.id, 'six times seven?');
    instance.stop();

    expect(inTransaction.stepCompleted).toEqual([true]);
    // After the question (stored on arrival, before the run): the tool's result, then the answer,
    // each written inside its event's transaction.
    expect(inTransaction.resultRemembered!.slice(1)).toEqual([true, true]);
  });

  it('remembers user messages, tool groups and the answer, and sends them with the next message', async () => {
    const memory = conversationMemory(store, counter, settings);
    const instance = startInstance(store, 'test');
    const conversation = newConversation();
    model.enqueue(
      toolCalls(
        { name: 'calculator', arguments: { expression: '6*7' }, id: 'call_1' },
        { name: 'final_answer', arguments: { answer: 'early', tools_used: [] }, id: 'call_f' },
      ),
      finalAnswer('6 × 7 = 42', ['calculator']),
      (request) => {
        expect(request.messages.slice(1)).toEqual([
          { role: 'user', content: 'Ada: what is 6*7?' },
          // The refused final_answer call is not remembered; the group stays valid without it.
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '42' },
          { role: 'assistant', content: '6 × 7 = 42' },
          { role: 'user', content: 'Ada: and plus one?' },
        ]);
        return finalAnswer('43');
      },
    );

    await exchange(memory, conversation.id, instance.id, 'what is 6*7?');
    await exchange(memory, conversation.id, instance.id, 'and plus one?');

    expect(store.messages.count(conversation.id)).toBe(6);
    instance.stop();
  });

  it('keeps memory apart per conversation, and across closing and re-opening the database', async () => {
    const instance = startInstance(store, 'test');
    const first = newConversation('terminal:first');
    const second = newConversation('terminal:second');
    model.enqueue(finalAnswer('Noted.'));
    await exchange(conversationMemory(store, counter, settings), first.id, instance.id, 'my name is Ada');
    instance.stop();
    store.close();

    store = openStore(path);
    const memory = conversationMemory(store, counter, settings);
    expect(memory.loadWindow(first.id, []).history.map((message) => message.content)).toEqual([
      'Ada: my name is Ada',
      'Noted.',
    ]);
    expect(memory.loadWindow(second.id, []).history).toEqual([]);
  });

  it('writes every step while the run is still going', async () => {
    const memory = conversationMemory(store, counter, settings);
    const instance = startInstance(store, 'test');
    const conversation = newConversation();
    const reader = new BetterSqlite3(path, { readonly: true });
    let seenDuringRun: { kind: string; status: string; tool_name: string | null }[] = [];
    let runStatus = '';
    const peek = defineTool({
      name: 'peek',
      description: 'Looks at the step log from another connection.',
      parameters: z.object({}),
      execute() {
        seenDuringRun = reader
          .prepare('SELECT kind, status, tool_name FROM steps ORDER BY sequence')
          .all() as typeof seenDuringRun;
        runStatus = reader.prepare('SELECT status FROM runs').pluck().get() as string;
        return 'looked';
      },
    });
    model.enqueue(toolCalls({ name: 'peek', arguments: {} }), finalAnswer('done', ['peek']));

    await exchange(memory, conversation.id, instance.id, 'peek', buildToolRegistry([peek]));

    expect(runStatus).toBe('running');
    expect(seenDuringRun).toEqual([
      { kind: 'model-call', status: 'ok', tool_name: null },
      { kind: 'tool-call', status: 'started', tool_name: 'peek' },
    ]);
    const run = store.runs.recent(conversation.id, 1)[0]!;
    expect(run).toMatchObject({ status: 'answered', total_tokens: 240, instance_id: instance.id });
    expect(store.steps.ofRun(run.id).map((step) => [step.kind, step.status, step.result])).toEqual([
      ['model-call', 'ok', null],
      ['tool-call', 'ok', 'looked'],
      ['model-call', 'ok', null],
      ['final-answer', 'ok', '{"answer":"done","tools_used":["peek"]}'],
    ]);
    reader.close();
    instance.stop();
  });

  it('after a crash mid-run, answers the unfinished calls as cancelled so the history stays valid', async () => {
    const memory = conversationMemory(store, counter, settings);
    const conversation = newConversation();
    const triggerIds = [memory.recordUserMessage(conversation, { ...ada, content: 'two things' })!];
    const crashed = startInstance(store, 'test');
    const sinks = memory.runSink(conversation.id, crashed.id, { triggerIds }, silentLogger);
    // The run gets as far as one of two results; then the process dies.
    sinks({ type: 'run-start', runId: 'run-1', conversationId: 'c', model: 'm', toolNames: [], at: new Date() });
    const calls = [1, 2].map((n) => ({
      id: `call_${n}`,
      type: 'function' as const,
      function: { name: 'calculator', arguments: `{"expression":"${n}+${n}"}` },
    }));
    sinks({
      type: 'model-call',
      runId: 'run-1',
      step: 1,
      toolChoice: 'required',
      message: { role: 'assistant', content: null, tool_calls: calls },
      usage: null,
      finishReason: 'tool_calls',
      durationMs: 5,
    });
    sinks({ type: 'tool-call', runId: 'run-1', step: 1, callId: 'call_1', name: 'calculator', arguments: '{}' });
    sinks({ type: 'tool-call', runId: 'run-1', step: 1, callId: 'call_2', name: 'calculator', arguments: '{}' });
    sinks({
      type: 'tool-result',
      runId: 'run-1',
      step: 1,
      callId: 'call_2',
      name: 'calculator',
      result: '4',
      durationMs: 1,
    });
    // A turn's results are written as the event loop turns (run-log/write-behind.ts), before the crash.
    await setImmediatePromise();

    const { history } = memory.loadWindow(conversation.id, []);

    expect(history.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: calls },
      { role: 'tool', tool_call_id: 'call_1', content: cancelledObservation },
      { role: 'tool', tool_call_id: 'call_2', content: '4' },
    ]);
    expect(chatRequestProblems({ model: 'm', messages: history })).toEqual([]);
    expect(store.steps.ofRun('run-1').map((step) => step.status)).toEqual(['ok', 'started', 'ok']);
  });

  it('loads the window through the conversation index, reading only the newest rows', () => {
    const plan = store.db.prepare(`EXPLAIN QUERY PLAN ${windowQuery}`).all(1, 0, 10) as { detail: string }[];
    expect(plan.map((row) => row.detail).join('\n')).toMatch(
      /SEARCH messages USING (COVERING )?INDEX messages_by_conversation \(conversation_id=\? AND (id|rowid)>\?\)/,
    );
    expect(plan.map((row) => row.detail).join('\n')).not.toMatch(/TEMP B-TREE|SCAN messages/);
  });
});

describe('instances and stale runs', () => {
  it('marks the runs of a gone instance interrupted, and leaves a live one alone', () => {
    const conversation = newConversation();
    const live = startInstance(store, 'chat');
    store.instances.register('dead', 'bot', Date.now() - 120_000);
    store.runs.start({
      id: 'run-dead',
      conversationId: conversation.id,
      instanceId: 'dead',
      triggerMessageIds: [],
      model: 'm',
    });
    store.runs.start({
      id: 'run-live',
      conversationId: conversation.id,
      instanceId: live.id,
      triggerMessageIds: [],
      model: 'm',
    });

    const next = startInstance(store, 'steps');

    expect(store.runs.byId('run-dead')).toMatchObject({
      status: 'interrupted',
      error: 'the process running it stopped before it ended',
    });
    expect(store.runs.byId('run-live')?.status).toBe('running');
    live.stop();
    expect(store.runs.byId('run-live')?.status).toBe('interrupted');
    next.stop();
  });

  it('counts an instance with the pid of this process, not started by it, as gone: a crashed bot whose pid came back', () => {
    const conversation = newConversation();
    // Same host, same pid, fresh heartbeat: as a bot that was process 1 in a container, restarted at once.
    store.instances.register('crashed', 'bot');
    store.runs.start({
      id: 'run-crashed',
      conversationId: conversation.id,
      instanceId: 'crashed',
      triggerMessageIds: [],
      model: 'm',
    });

    const bot = startInstance(store, 'bot', { exclusive: true });

    expect(store.runs.byId('run-crashed')?.status).toBe('interrupted');
    bot.stop();
  });

  it('refuses a second exclusive instance of a kind while the first lives, with a clear message', () => {
    const bot = startInstance(store, 'bot', { exclusive: true });
    expect(() => startInstance(store, 'bot', { exclusive: true })).toThrow(
      /Another bot \(process \d+ on .+\) is already using this database/,
    );
    // A chat may share the database with the bot.
    startInstance(store, 'chat').stop();
    bot.stop();
    startInstance(store, 'bot', { exclusive: true }).stop();
  });
});

describe('message ids', () => {
  it('are never reused after a deletion, so a run cannot mistake a new row for the message it answers', () => {
    const conversation = store.conversations.ensure({
      key: 'terminal:ids',
      title: 'ids',
      guildId: null,
      channelId: null,
      startedById: null,
      startedByName: null,
    });
    const memory = conversationMemory(store, counter, { tokenBudget: 8000, messageTokenCap: 1500 });
    const deleted = memory.recordUserMessage(conversation, {
      authorId: 'u',
      authorName: 'Ada',
      content: 'gone soon',
      discordMessageId: 'd1',
    })!;
    store.messages.deleteByDiscordId('d1');
    const next = memory.recordUserMessage(conversation, {
      authorId: 'u',
      authorName: 'Ada',
      content: 'new',
      discordMessageId: 'd2',
    })!;

    expect(next).toBeGreaterThan(deleted);
    expect(memory.loadWindow(conversation.id, [deleted]).input).toEqual([]);
  });
});
