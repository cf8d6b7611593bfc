/**
 * What fuzzing the model's output found, each as the smallest case that shows it: the agent loop
 * with the real SQLite sinks (step log and memory) behind the real openai client.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../db/store.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { defaultAgentSettings, runAgent, type RunResult } from '../../src/agent/run-agent.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { conversationMemory } from '../../src/memory/conversation-memory.ts';
import { loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';
import { startInstance } from '../../src/run-log/instance.ts';
import { builtInTools } from '../../tools/index.ts';
import { modelClientFor, testContext } from '../support/agent-harness.ts';
import { type BotWorld, mentionOf, startBotWorld } from '../support/bot-harness.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';
import { tempStore } from '../support/temp-store.ts';
import { conversationProblems, databaseProblems } from './invariants.ts';

let model: ScriptedModel;
let store: Store;
let counter: TokenCounter;
let stopInstance: (() => void) | undefined;
beforeAll(async () => {
  counter = await loadTokenCounter('gpt-4.1-mini');
});
beforeEach(async () => {
  model = await startScriptedModel();
  ({ store } = tempStore());
});
afterEach(async () => {
  stopInstance?.();
  stopInstance = undefined;
  store.close();
  await model.close();
});

/** One run of the agent loop on a stored user message, recorded by the sinks the bot uses. */
async function runRecorded(
  settings: Partial<typeof defaultAgentSettings> = {},
): Promise<{ result: RunResult; conversationId: number }> {
  const memory = conversationMemory(store, counter, { tokenBudget: 8000, messageTokenCap: 1500 });
  const instance = startInstance(store, 'test');
  stopInstance = () => instance.stop();
  const conversation = store.conversations.ensure({
    key: 'test:1',
    title: 't',
    guildId: null,
    channelId: null,
    startedById: 'u',
    startedByName: 'Ada',
  });
  const storedId = memory.recordUserMessage(conversation, {
    authorId: 'u',
    authorName: 'Ada',
    content: 'hello',
    discordMessageId: null,
  })!;
  const { history, input } = memory.loadWindow(conversation.id, [storedId]);
  const result = await runAgent({
    model: modelClientFor(model, { maxRetries: 0 }),
    systemPrompt: 'test',
    history,
    input,
    tools: buildToolRegistry(builtInTools),
    context: testContext,
    settings: { ...defaultAgentSettings, ...settings },
    onEvent: memory.runSink(conversation.id, instance.id, { triggerIds: [storedId] }, silentLogger),
  });
  return { result, conversationId: conversation.id };
}

const problemsOf = (conversationId: number) => [
  ...databaseProblems(store.db),
  ...conversationProblems(store.db, conversationId, counter),
];

describe('found by fuzzing the model output', () => {
  it('records a second final_answer of the same turn, ignored, in the step log', async () => {
    model.enqueue(
      toolCalls(
        { name: 'final_answer', arguments: { answer: 'First.', tools_used: [] }, id: 'call_a' },
        { name: 'final_answer', arguments: { answer: 'Second.', tools_used: [] }, id: 'call_b' },
      ),
    );

    const { result, conversationId } = await runRecorded();

    expect(result.answer?.answer).toBe('First.');
    expect(problemsOf(conversationId)).toEqual([]);
    const ignored = store.steps.ofRun(result.runId).find((step) => step.tool_call_id === 'call_b');
    expect(ignored).toMatchObject({
      status: 'error',
      error_kind: 'not-executed',
      error: 'Ignored: an answer was already given in this turn.',
    });
  });

  it('answers each of two calls that share a tool_call id once, so the next request is valid', async () => {
    model.enqueue(
      toolCalls(
        { name: 'calculator', arguments: { expression: '2*3' }, id: 'call_same' },
        { name: 'calculator', arguments: { expression: '4*5' }, id: 'call_same' },
      ),
      (request) => {
        const [assistant, ...results] = request.messages.slice(-3);
        const ids = assistant!.tool_calls!.map((call) => call.id);
        expect(new Set(ids).size).toBe(2);
        expect(results.map((message) => [message.tool_call_id, message.content])).toEqual([
          [ids[0], '6'],
          [ids[1], '20'],
        ]);
        return toolCalls({ name: 'final_answer', arguments: { answer: '6 and 20', tools_used: ['calculator'] } });
      },
    );

    const { result, conversationId } = await runRecorded();

    expect(result.answer?.answer).toBe('6 and 20');
    expect(problemsOf(conversationId)).toEqual([]);
  });

  it('ends the run on record when the server reports token usage that is not a count', async () => {
    const answer = toolCalls({ name: 'final_answer', arguments: { answer: 'Done.', tools_used: [] } });
    const body = answer.body as { usage: unknown };
    body.usage = { prompt_tokens: 'many', completion_tokens: -5, total_tokens: null };
    model.enqueue(answer);

    const { result, conversationId } = await runRecorded();

    expect(result.answer?.answer).toBe('Done.');
    expect(problemsOf(conversationId)).toEqual([]);
    expect(store.runs.byId(result.runId)).toMatchObject({
      status: 'answered',
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
    });
  });

  it('charges prompt and completion tokens when the server leaves the total out (the daily budget reads the total)', async () => {
    const answer = toolCalls({ name: 'final_answer', arguments: { answer: 'Done.', tools_used: [] } });
    (answer.body as { usage: unknown }).usage = { prompt_tokens: 30, completion_tokens: 12 };
    model.enqueue(answer);

    const { result } = await runRecorded();

    expect(store.runs.byId(result.runId)).toMatchObject({
      status: 'answered',
      prompt_tokens: 30,
      completion_tokens: 12,
      total_tokens: 42,
    });
  });

  it.each([
    ['tool_calls that is not a list', { role: 'assistant', content: null, tool_calls: { not: 'a list' } }],
    ['content that is an object', { role: 'assistant', content: { text: 'an object' } }],
    ['arguments, as JSON, nested too deep to write back', { role: 'assistant', content: null, tool_calls: ['DEEP'] }],
  ])('reports %s as a reply the bot could not read, not as a fault of its own', async (_, message) => {
    const reply = toolCalls({ name: 'final_answer', arguments: {} });
    const body = reply.body as { choices: { message: unknown }[] };
    body.choices[0]!.message = message;
    const deep = `{"id":"call_deep","type":"function","function":{"name":"calculator","arguments":${'['.repeat(20_000)}1${']'.repeat(20_000)}}}`;
    model.enqueue({ body: JSON.stringify(body).replace('"DEEP"', deep) });

    const { result, conversationId } = await runRecorded();

    expect(result.status).toBe('failed');
    expect(store.runs.byId(result.runId)).toMatchObject({ status: 'failed', error_code: 'model-invalid-response' });
    expect(result.userMessage).toBe('The model service sent a reply the bot could not read. Please try again.');
    expect(problemsOf(conversationId)).toEqual([]);
  });

  it('gives a tool_call id that is not well-formed Unicode a new one, so its result is found again in memory', async () => {
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '6*7' }, id: 'call_\udfff' }),
      finalAnswer('42', ['calculator']),
    );

    const { result, conversationId } = await runRecorded();

    expect(result.answer?.answer).toBe('42');
    expect(problemsOf(conversationId)).toEqual([]);
    const remembered = conversationMemory(store, counter, { tokenBudget: 8000, messageTokenCap: 1500 }).loadWindow(
      conversationId,
      [],
    ).history;
    expect(remembered.find((message) => message.role === 'tool')?.content).toBe('42');
  });
});

describe('found by fuzzing the model output, in Discord', () => {
  let world: BotWorld;
  afterEach(async () => {
    await world.close();
  });

  it('posts a megabyte answer as a few messages, cut and saying so, not as hundreds', async () => {
    world = await startBotWorld();
    world.model.enqueue(
      toolCalls({ name: 'final_answer', arguments: { answer: 'word '.repeat(200_000), tools_used: [] } }),
    );
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} write a lot`,
      mentions: [world.discord.botUser.id],
    });
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.store.runs.recent(null, 1)[0]?.delivered_at, {
      what: 'the answer delivered',
      timeoutMs: 30_000,
    });

    const posts = world.discord.botMessages(thread.id);
    expect(posts.length).toBeLessThanOrEqual(5);
    expect(posts.at(-1)!.content).toMatch(/\[…cut: \d+ more characters\]$/);
  }, 40_000);

  it('shows a turn of a hundred calls in a bounded tool post: ten listed, the others counted', async () => {
    world = await startBotWorld();
    const calls = Array.from({ length: 100 }, (_, index) => ({
      name: index % 2 ? 'calculator' : `made_up_${'x'.repeat(500)}`,
      arguments: { expression: `${index}+1` },
    }));
    world.model.enqueue(
      toolCalls(...calls),
      toolCalls({ name: 'final_answer', arguments: { answer: 'Done.', tools_used: [] } }),
    );
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} many calls`,
      mentions: [world.discord.botUser.id],
    });
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.discord.botMessages(thread.id).some((post) => post.content === 'Done.'), {
      what: 'the answer',
    });

    const toolPosts = world.discord.botMessages(thread.id).slice(0, -1);
    expect(toolPosts.length).toBeLessThanOrEqual(4);
    expect(
      toolPosts
        .map((post) => post.content)
        .join('\n')
        .match(/🔧/g),
    ).toHaveLength(10);
    expect(toolPosts.at(-1)!.content).toMatch(/…and 90 more calls$/);
  });
});
