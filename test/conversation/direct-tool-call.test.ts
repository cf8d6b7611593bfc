import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../db/store.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { defaultAgentSettings, runAgent } from '../../src/agent/run-agent.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { runDirectToolCall } from '../../src/conversation/direct-tool-call.ts';
import { conversationMemory } from '../../src/memory/conversation-memory.ts';
import { loadTokenCounter } from '../../src/memory/token-counter.ts';
import { builtInTools } from '../../tools/index.ts';
import { modelClientFor, testContext } from '../support/agent-harness.ts';
import { finalAnswer, type ScriptedModel, startScriptedModel, toolCalls } from '../support/fake-model.ts';
import { tempStore } from '../support/temp-store.ts';

let store: Store;
let model: ScriptedModel;
beforeEach(async () => {
  store = tempStore().store;
  store.instances.register('i', 'bot');
  model = await startScriptedModel();
});
afterEach(async () => {
  store.close();
  await model.close();
});

const tools = buildToolRegistry(builtInTools);
const calculator = tools.find((tool) => tool.name === 'calculator')!;
/** The fields of a step that say what it was, not when or under which id. */
const shape = ({
  kind,
  sequence,
  model_step,
  tool_name,
  arguments: args,
  status,
  result,
  error,
  error_kind,
}: ReturnType<Store['steps']['ofRun']>[number]) => ({
  kind,
  sequence,
  model_step,
  tool_name,
  arguments: args,
  status,
  result,
  error,
  error_kind,
});

describe('/tool through the agent sinks', () => {
  it('records a person’s tool call exactly as the agent’s own, in the same transaction as memory', async () => {
    const counter = await loadTokenCounter('gpt-4.1-mini');
    const memory = conversationMemory(store, counter, { tokenBudget: 8000, messageTokenCap: 1500 });
    const conversation = store.conversations.ensure({
      key: 'discord:1',
      title: 't',
      guildId: 'g',
      channelId: 'c',
      threadId: '1',
      startedById: 'u',
      startedByName: 'Ada',
    });
    const inTransaction: boolean[] = [];
    const insert = store.messages.insert.bind(store.messages);
    const complete = store.steps.complete.bind(store.steps);
    store.steps.complete = (...args) => (inTransaction.push(store.db.inTransaction), complete(...args));
    store.messages.insert = (...args) => (inTransaction.push(store.db.inTransaction), insert(...args));

    const direct = await runDirectToolCall(store, memory, {
      conversation,
      remember: true,
      tool: calculator,
      args: { expression: '6*7' },
      context: { ...testContext, conversationId: conversation.key },
      timeoutMs: 5_000,
      instanceId: 'i',
      requester: 'u',
    });

    expect(direct).toMatchObject({ ok: true, text: '42' });
    // The step completed and the result remembered, both inside the tool-result event's transaction.
    expect(inTransaction).toEqual([true, true]);
    const [step] = store.steps.ofRun(direct.runId);
    expect(store.runs.byId(direct.runId)).toMatchObject({ model: 'direct (/tool by u)', status: 'answered' });

    // The agent calling the same tool leaves the same tool step.
    model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), finalAnswer('42'));
    const agent = await runAgent({
      model: modelClientFor(model),
      systemPrompt: 't',
      history: [],
      input: [],
      tools,
      context: testContext,
      settings: defaultAgentSettings,
      onEvent: memory.runSink(conversation.id, 'i', {}, silentLogger),
    });
    const agentStep = store.steps.ofRun(agent.runId).find((candidate) => candidate.kind === 'tool-call')!;
    expect(shape(step!)).toEqual({ ...shape(agentStep), sequence: 1 });

    // Memory holds the call as a turn of one call, answered, so the agent can refer to it.
    const { history } = memory.loadWindow(conversation.id, []);
    expect(history.slice(0, 2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: step!.tool_call_id,
            type: 'function',
            function: { name: 'calculator', arguments: '{"expression":"6*7"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: step!.tool_call_id, content: '42' },
    ]);
  });

  it('keeps a call made outside a conversation thread out of memory, and a failure in the step log', async () => {
    const memory = conversationMemory(store, await loadTokenCounter('gpt-4.1-mini'), {
      tokenBudget: 8000,
      messageTokenCap: 1500,
    });
    const conversation = store.conversations.ensure({
      key: 'discord:tool:c',
      title: 't',
      guildId: 'g',
      channelId: 'c',
      startedById: 'u',
      startedByName: 'Ada',
    });
    const direct = await runDirectToolCall(store, memory, {
      conversation,
      remember: false,
      tool: calculator,
      args: { expression: '1/' },
      context: testContext,
      timeoutMs: 5_000,
      instanceId: 'i',
      requester: 'u',
    });
    expect(direct.ok).toBe(false);
    expect(store.messages.count(conversation.id)).toBe(0);
    expect(store.steps.ofRun(direct.runId).map((step) => [step.status, step.error_kind])).toEqual([['error', 'threw']]);
    expect(store.runs.byId(direct.runId)).toMatchObject({ status: 'failed', error: direct.text });
  });
});
