/**
 * `npm run bench:summary`: one thread grows to 1,000 stored messages through the real memory and
 * SQLite, with memory summaries off and on (MEMORY_SUMMARY). Prints the tokens of each answer's
 * window, what the summary calls cost per 100 messages, and whether answers wait longer: the
 * window's load time (on the answer's path) and, through the real conversation queue, how long a
 * message waits for its answer to start when messages keep coming while summaries are made.
 * The model is an in-process stand-in: it counts what it is sent and writes a 500-token summary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../db/store.ts';
import { silentLogger } from '../src/agent/logger.ts';
import type { ModelClient, ModelRequest } from '../src/agent/model-client.ts';
import { ConversationQueues } from '../src/conversation/conversation-queues.ts';
import { conversationMemory } from '../src/memory/conversation-memory.ts';
import { loadTokenCounter } from '../src/memory/token-counter.ts';
import { startInstance } from '../src/run-log/instance.ts';
import { sized } from './smoke.ts';

const budget = 8000;
const messages = sized(1000, 100);
const counter = await loadTokenCounter('gpt-4.1-mini');
const sentence = 'about the release plan, the failing tests and who reviews what this week';
const summaryWords = Array.from({ length: 500 }, (_, index) => `w${index % 50}`).join(' ');

const tokensOf = (request: Pick<ModelRequest, 'messages'>) =>
  request.messages.reduce(
    (sum, message) => sum + counter.count(typeof message.content === 'string' ? message.content : ''),
    0,
  );

/** A stand-in that answers summary calls after `latencyMs`, counting their tokens. */
function summaryModel(latencyMs: number) {
  const spent = { calls: 0, prompt: 0, completion: 0 };
  const model: ModelClient = {
    model: 'stand-in',
    async complete(request) {
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const prompt = tokensOf(request);
      const completion = counter.count(summaryWords);
      Object.assign(spent, {
        calls: spent.calls + 1,
        prompt: spent.prompt + prompt,
        completion: spent.completion + completion,
      });
      return {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c',
              type: 'function',
              function: { name: 'write_summary', arguments: JSON.stringify({ summary: summaryWords }) },
            },
          ],
        },
        usage: { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion },
        finishReason: 'tool_calls',
        model: 'stand-in',
      };
    },
  };
  return { model, spent };
}

/** A fresh database and a thread in it. */
function thread(summaries: boolean) {
  const folder = mkdtempSync(join(tmpdir(), 'bench-summary-'));
  const store = openStore(join(folder, 'bot.sqlite'));
  const memory = conversationMemory(store, counter, { tokenBudget: budget, messageTokenCap: 4000, summaries });
  const instance = startInstance(store, 'bench');
  const conversation = store.conversations.ensure({
    key: `terminal:summary-${summaries}`,
    title: 'summary',
    guildId: null,
    channelId: null,
    startedById: 'u',
    startedByName: 'Ada',
  });
  const close = () => {
    instance.stop();
    store.close();
    rmSync(folder, { recursive: true, force: true });
  };
  return { store, memory, instance, conversation, close };
}

/** One exchange: the question stored, its window loaded, its answer stored. Returns the window's tokens. */
function exchange(world: ReturnType<typeof thread>, index: number) {
  const { store, memory, conversation } = world;
  const id = memory.recordUserMessage(conversation, {
    authorId: 'u',
    authorName: index % 3 === 0 ? 'Bob' : 'Ada',
    content: `${index}: a question ${sentence}?`,
    discordMessageId: null,
  })!;
  const window = memory.loadWindow(conversation.id, [id]);
  const content = `Answer ${index}: here is what I found ${sentence}.`;
  store.messages.insert({
    conversationId: conversation.id,
    runId: null,
    role: 'assistant',
    authorId: null,
    authorName: null,
    content,
    toolCalls: null,
    toolCallId: null,
    groupId: null,
    answersId: id,
    discordMessageId: null,
    tokenCount: counter.count(content),
  });
  return tokensOf({ messages: [...window.history, ...window.input] });
}

/** The thread grown to `messages` stored messages; summaries made after each answer as the bot does. */
async function grow(summaries: boolean) {
  const world = thread(summaries);
  const { model, spent } = summaryModel(0);
  const rows: { stored: number; tokens: number }[] = [];
  for (let index = 1; index <= messages / 2; index++) {
    rows.push({ stored: index * 2 - 1, tokens: exchange(world, index) });
    await world.memory.summarise({
      conversationId: world.conversation.id,
      model,
      modelName: 'stand-in',
      shutdown: new AbortController().signal,
      instanceId: world.instance.id,
      logger: silentLogger,
    });
  }
  return { rows, spent, world };
}

/** The mean time to load the newest message's window in each finished thread, interleaved so that neither gets the warmer machine. */
function loadTimes(worlds: readonly ReturnType<typeof thread>[], rounds = 300): number[] {
  const totals = worlds.map(() => 0);
  const newest = worlds.map((world) => world.store.messages.newestId(world.conversation.id) - 1);
  for (let round = 0; round < rounds; round++)
    for (const [index, world] of worlds.entries()) {
      const started = performance.now();
      world.memory.loadWindow(world.conversation.id, [newest[index]!]);
      totals[index]! += performance.now() - started;
    }
  return totals.map((total) => total / rounds);
}

/**
 * Answer wait through the real queue: a message every `everyMs`, an answer taking `answerMs`, a
 * summary call `summaryMs`. Returns how long each message waited for its answer to start, in ms.
 */
async function queueWaits(
  summaries: boolean,
  options: { count: number; everyMs: number; answerMs: number; summaryMs: number },
) {
  const world = thread(summaries);
  const { model } = summaryModel(options.summaryMs);
  const waits: number[] = [];
  let index = 0;
  const queues = new ConversationQueues<number>(
    async (_key, batch) => {
      for (const arrived of batch) waits.push(performance.now() - arrived);
      exchange(world, ++index);
      await new Promise((resolve) => setTimeout(resolve, options.answerMs));
    },
    (error) => console.error(error),
    20,
    (_key, newWork) =>
      world.memory.summarise({
        conversationId: world.conversation.id,
        model,
        modelName: 'stand-in',
        shutdown: new AbortController().signal,
        newWork,
        instanceId: world.instance.id,
        logger: silentLogger,
      }),
  );
  for (let sent = 0; sent < options.count; sent++) {
    queues.push('bench', performance.now());
    await new Promise((resolve) => setTimeout(resolve, options.everyMs));
  }
  await queues.idle();
  world.close();
  return waits.sort((a, b) => a - b);
}

const off = await grow(false);
const on = await grow(true);
console.log(
  `Memory budget ${budget} tokens; ${messages} stored messages (a question and an answer, ~20 tokens each).\n`,
);
console.log('| stored messages | window tokens, summaries off | window tokens, summaries on |');
console.log('|--:|--:|--:|');
for (const stored of [1, 99, 199, 299, 399, 499, 599, 799, 999].filter((stored) => stored < messages)) {
  const [a, b] = [off.rows.find((row) => row.stored === stored)!, on.rows.find((row) => row.stored === stored)!];
  console.log(`| ${stored} | ${a.tokens} | ${b.tokens} |`);
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const per100 = (value: number) => Math.round((value / messages) * 100);
const [offLoad, onLoad] = loadTimes([off.world, on.world]);
off.world.close();
on.world.close();
console.log(
  `\nWindow tokens per answer, mean: off ${Math.round(mean(off.rows.map((row) => row.tokens)))}, on ${Math.round(mean(on.rows.map((row) => row.tokens)))}`,
);
console.log(
  `Summary calls: ${on.spent.calls} (${((on.spent.calls / messages) * 100).toFixed(1)} per 100 messages); per 100 messages ${per100(on.spent.prompt)} prompt + ${per100(on.spent.completion)} completion tokens`,
);
console.log(
  `Answers' window tokens per 100 messages: off ${per100(off.rows.reduce((sum, row) => sum + row.tokens, 0))}, on ${per100(on.rows.reduce((sum, row) => sum + row.tokens, 0))}`,
);
const p = (values: number[], q: number) =>
  values[Math.min(values.length - 1, Math.floor(values.length * q))]!.toFixed(2);
console.log(
  `Window load of the 1,000-message thread (on the answer's path), mean of 300: off ${offLoad!.toFixed(2)} ms, on ${onLoad!.toFixed(2)} ms`,
);
const load = { count: sized(400, 20), everyMs: 30, answerMs: 20, summaryMs: 100 };
for (const summaries of [false, true]) {
  const waits = await queueWaits(summaries, load);
  console.log(
    `Queue, a message every ${load.everyMs} ms, answers ${load.answerMs} ms, summary calls ${load.summaryMs} ms, summaries ${summaries ? 'on' : 'off'}: wait for the answer to start p50 ${p(waits, 0.5)} ms, p95 ${p(waits, 0.95)} ms, max ${p(waits, 1)} ms`,
  );
}
