/**
 * `npm run bench:shard-database`: four shard processes on one host, writing their step logs and
 * memory into one shared SQLite file (WAL) or each into its own file. Each process runs the real
 * agent loop with the bot's real sinks (step log and memory, each event in one transaction, as in
 * the bot) against an in-process model that answers at once (a calculator call, then the answer),
 * so that the database is all there is to wait on. better-sqlite3 is synchronous: a writer that
 * finds the file locked by another process waits inside SQLite's busy handler, and its whole event
 * loop waits with it. Reported: runs per second in all, and each run's time (p50, p99, max).
 *
 *   npm run bench:shard-database [-- --processes 4 --runs 2000]
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { openStore } from '../db/store.ts';
import type { ModelClient, ModelRequest, ModelResponse } from '../src/agent/model-client.ts';
import { defaultAgentSettings, runAgent } from '../src/agent/run-agent.ts';
import { buildToolRegistry } from '../src/agent/tool-registry.ts';
import { createLogger } from '../src/app/logging.ts';
import { conversationMemory } from '../src/memory/conversation-memory.ts';
import { loadTokenCounter } from '../src/memory/token-counter.ts';
import { startInstance } from '../src/run-log/instance.ts';
import { builtInTools } from '../tools/index.ts';
import { quantile } from './statistics.ts';
import { sized } from './smoke.ts';

const { values } = parseArgs({
  options: {
    processes: { type: 'string', default: '4' },
    runs: { type: 'string', default: sized('2000', '20') },
    worker: { type: 'string' },
  },
});

/** A model that asks for the calculator, then answers: two model calls, one tool call per run. */
const model: ModelClient = {
  model: 'bench',
  complete(request: ModelRequest): Promise<ModelResponse> {
    const asked = request.messages.at(-1)!.role === 'user';
    const call = asked
      ? { name: 'calculator', arguments: '{"expression":"2+3*4"}' }
      : { name: 'final_answer', arguments: '{"answer":"It is 14.","tools_used":["calculator"]}' };
    return Promise.resolve({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${Math.random()}`, type: 'function', function: call }],
      },
      usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
      finishReason: 'tool_calls',
      model: 'bench',
    });
  },
};

async function worker(path: string, runs: number): Promise<void> {
  const store = openStore(path);
  const instance = startInstance(store, 'bench');
  const logger = createLogger('silent', pino.destination({ dest: '/dev/null', sync: true }));
  const memory = conversationMemory(store, await loadTokenCounter('gpt-4.1-mini'), {
    tokenBudget: 8000,
    messageTokenCap: 1500,
  });
  const tools = buildToolRegistry(builtInTools);
  const conversation = store.conversations.ensure({
    key: `discord:bench-${process.pid}`,
    title: 'bench',
    guildId: String(process.pid),
    channelId: 'c',
    threadId: 't',
    startedById: 'u',
    startedByName: 'Ada',
  });
  const times: number[] = [];
  process.send!({ type: 'ready' });
  await once(process, 'message');
  const started = performance.now();
  for (let run = 0; run < runs; run++) {
    const runStart = performance.now();
    const trigger = memory.recordUserMessage(conversation, {
      authorId: 'u',
      authorName: 'Ada',
      content: `What is 2+3*4? (${run})`,
      discordMessageId: null,
    })!;
    const result = await runAgent({
      model,
      systemPrompt: 'You are a bench.',
      history: [],
      input: [{ role: 'user', content: `Ada: What is 2+3*4? (${run})` }],
      tools,
      context: {
        conversationId: conversation.key,
        guildId: null,
        channelId: null,
        requester: { id: 'u', displayName: 'Ada', isModerator: false },
        logger,
      },
      settings: defaultAgentSettings,
      onEvent: memory.runSink(conversation.id, instance.id, { triggerIds: [trigger] }, logger),
    });
    if (result.answer?.answer !== 'It is 14.') throw new Error(`run ${run}: ${result.status} ${result.userMessage}`);
    times.push(performance.now() - runStart);
  }
  const wallMs = performance.now() - started;
  instance.stop();
  store.close();
  process.send!({ type: 'done', times, wallMs });
}

if (values.worker !== undefined) {
  await worker(values.worker, Number(values.runs));
  process.exit(0);
}

const processes = Number(values.processes);
const runs = Number(values.runs);

async function measure(shared: boolean) {
  const folder = mkdtempSync(join(tmpdir(), 'bench-shard-db-'));
  const children = Array.from({ length: processes }, (_, index) =>
    fork(
      new URL(import.meta.url),
      ['--worker', join(folder, shared ? 'bot.sqlite' : `bot.shard-${index}.sqlite`), '--runs', String(runs)],
      {
        execArgv: ['--import', 'tsx'],
      },
    ),
  );
  // All migrated and ready before any starts: the first opening of a shared file migrates it.
  await Promise.all(children.map((child) => once(child, 'message')));
  const started = performance.now();
  const done = children.map((child) => once(child, 'message') as Promise<[{ times: number[]; wallMs: number }]>);
  for (const child of children) child.send({ type: 'go' });
  const results = (await Promise.all(done)).map(([result]) => result);
  const wallMs = performance.now() - started;
  rmSync(folder, { recursive: true, force: true });
  const times = results.flatMap((result) => result.times);
  return { wallMs, times, runsPerSecond: (times.length / wallMs) * 1000 };
}

// Alternated, twice each, so that the machine's mood falls on both.
const rounds = [await measure(false), await measure(true), await measure(false), await measure(true)];
console.log(
  `Node ${process.version}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)} at the end; ${processes} processes × ${runs} runs each (2 model calls, 1 tool call, ~10 transactions a run), WAL, synchronous=NORMAL.\n`,
);
console.log('| database | round | runs per second, in all | run time p50 / p99 / max (ms) |');
console.log('|---|--:|--:|--:|');
rounds.forEach((round, index) => {
  console.log(
    `| ${index % 2 === 0 ? 'one file per shard' : 'one shared file'} | ${Math.floor(index / 2) + 1} | ${round.runsPerSecond.toFixed(0)} | ${quantile(round.times, 0.5).toFixed(2)} / ${quantile(round.times, 0.99).toFixed(2)} / ${Math.max(...round.times).toFixed(1)} |`,
  );
});
