/**
 * `npm run bench:load`: many threads at once. The bot runs in this process as `npm start` builds
 * it (src/main.ts's composition, production defaults, MAX_CONCURRENT_RUNS=20), against the fake
 * Discord and a model that answers after 200 ms, each in a process of its own (load-discord.ts,
 * the fake model's echo mode), so that what is measured here is the bot's own work: 200 people
 * each mention the bot (it starts a thread) and ask twice more in the thread, each question after
 * the previous answer. Every question's answer is checked (content and thread).
 *
 * Reported: the total time against the ideal, the larger of what the model limit allows
 * (model calls × latency / concurrent calls) and what Discord's 50 requests per second allow
 * (REST calls made / 50); event-loop delay; peak memory; the heap after the run against before.
 *
 *   npm run bench:load [-- --threads 200 --messages 3 --latency 200 --concurrency 20]
 */
import { spawn } from 'node:child_process';
import { startLoadProcesses } from './load-processes.ts';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { openStore } from '../db/store.ts';
import { botDependencies } from '../src/app/bot-dependencies.ts';
import { parseConfig } from '../src/settings/config.ts';
import { startBot } from '../src/discord/bot.ts';
import { createLogger } from '../src/app/logging.ts';
import { startInstance } from '../src/run-log/instance.ts';
import type { LoadResult } from './load-discord.ts';
import { askChild, quantile } from './statistics.ts';
import { sized } from './smoke.ts';

const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: sized('200', '4') },
    messages: { type: 'string', default: '3' },
    latency: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '20' },
  },
});
const threads = Number(values.threads);
const messagesPerThread = Number(values.messages);
const latencyMs = Number(values.latency);
// The model's whole time per call: its latency to the first chunk, then the answer's 3 pieces 20 ms
// apart when the bot streams (test/support/fake-model/echo-mode.ts).
const modelMs = latencyMs + 3 * 20;
const concurrency = Number(values.concurrency);
const gc = (globalThis as { gc?: () => void }).gc!;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:load does)');

// --- The model and Discord, each in its own process. ---
const { model, modelURL, discord, apiUrl, token } = await startLoadProcesses(latencyMs);
const ask = askChild;

// --- The bot, composed as src/main.ts composes it, with the production defaults. ---
const folder = mkdtempSync(join(tmpdir(), 'bench-load-'));
const loaded = parseConfig(
  {
    DISCORD_TOKEN: token,
    DISCORD_API_URL: apiUrl,
    OPENAI_BASE_URL: modelURL,
    OPENAI_API_KEY: 'bench',
    DATABASE_PATH: join(folder, 'bot.sqlite'),
    MAX_CONCURRENT_RUNS: String(concurrency),
  },
  null,
  { purpose: 'bot' },
);
if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
const config = loaded.config;
// The bot's log lines at its default level, formatted and written (synchronously) to /dev/null.
const logger = createLogger(config.logLevel, pino.destination({ dest: '/dev/null', sync: true }));
const store = openStore(config.databasePath);
const instance = startInstance(store, 'bot', { exclusive: true, logger });
const bot = await startBot(await botDependencies(config, { store, instanceId: instance.id, logger }));

const conversationsLeft = () => (store.db.prepare('SELECT count(*) AS n FROM conversations').get() as { n: number }).n;
/** Deletes the threads as people would, and waits until the bot has purged their conversations. */
async function deleteThreads(threadIds: string[]): Promise<void> {
  await ask(discord, { type: 'delete', threadIds }, 'deleted');
  for (let waited = 0; conversationsLeft() > 0 && waited < 10_000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
}
/** Collects twice, with a turn of the loop between, and returns what is still in use. */
async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  return process.memoryUsage();
}

// --- A warm-up round (10 threads, then deleted), so that the start is a bot that has run before:
// code compiled, connections open. Memory that grows once is not memory that grows per thread.
const warmUp = await ask<LoadResult>(
  discord,
  { type: 'load', threads: 10, messages: messagesPerThread, timeoutMs: 60_000, offset: 100_000 },
  'result',
);
if (warmUp.answers !== 10 * messagesPerThread || warmUp.failures.length > 0)
  throw new Error(`warm-up: ${warmUp.answers} answers; ${warmUp.failures.join('; ')}`);
await bot.queues.idle();
await deleteThreads(warmUp.threadIds);

// --- The load, measured. ---
const mib = (bytes: number) => bytes / 2 ** 20;
const before = await settledMemory();
const modelCallsBefore = (await ask<{ requests: number }>(model, {})).requests;
const peak = { rss: before.rss, heapUsed: before.heapUsed };
const sampler = setInterval(() => {
  const now = process.memoryUsage();
  peak.rss = Math.max(peak.rss, now.rss);
  peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
}, 50);
// The histogram records the time between the monitor's 10 ms ticks: the delay is that less 10 ms.
const loopResolutionMs = 10;
const loopDelay = monitorEventLoopDelay({ resolution: loopResolutionMs });
loopDelay.enable();
// A control: an idle node process measuring its own loop delay meanwhile. What it sees is the
// machine's doing (other processes taking the cores), not the bot's.
const control = spawn(
  process.execPath,
  [
    '-e',
    `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: ${loopResolutionMs} }); h.enable(); process.stdin.resume(); process.stdin.on('end', () => { h.disable(); console.log(JSON.stringify({ p50: h.percentile(50), p99: h.percentile(99), max: h.max })); });`,
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const cpuBefore = process.cpuUsage();
const result = await ask<LoadResult>(
  discord,
  { type: 'load', threads, messages: messagesPerThread, timeoutMs: 600_000, offset: 0 },
  'result',
);
const cpu = process.cpuUsage(cpuBefore);
loopDelay.disable();
control.stdin!.end();
const [controlLine] = (await once(control.stdout!, 'data')) as [Buffer];
const idle = JSON.parse(controlLine.toString()) as { p50: number; p99: number; max: number };
await bot.queues.idle();
clearInterval(sampler);
const modelReport = await ask<{ requests: number; maxInFlight: number; arrivals: Record<string, number> }>(model, {});
// A new thread's question → its model call arriving: the run no longer waits for its thread.
const openingToModelMs = Object.entries(result.openingsAskedAt).map(
  ([tag, askedAt]) => modelReport.arrivals[tag]! - askedAt,
);
const modelCalls = modelReport.requests - modelCallsBefore;
const maxInFlight = modelReport.maxInFlight;
const after = await settledMemory();
const cachedNow = () => ({
  channels: bot.client.channels.cache.size,
  messages: [...bot.client.channels.cache.values()].reduce(
    (sum, channel) => sum + ('messages' in channel ? channel.messages.cache.size : 0),
    0,
  ),
});
const cached = cachedNow();
// The warm-up's runs were purged with its threads: these are the measured load's.
const stored = store.db
  .prepare(
    "SELECT (SELECT count(*) FROM runs WHERE status = 'answered') AS runs, (SELECT count(*) FROM messages) AS messages",
  )
  .get() as { runs: number; messages: number };

// Then the people delete their threads: discord.js drops them from its caches and the bot purges
// their conversations. What is left in the heap after that is what the bot itself kept.
await deleteThreads(result.threadIds);
const afterDeletion = await settledMemory();
const cachedAfterDeletion = cachedNow();
const leftAfterDeletion = conversationsLeft();

await bot.stop();
instance.stop();
store.close();
const { problems } = await ask<{ problems: string[] }>(discord, { type: 'close' }, 'closed');
discord.disconnect();
model.disconnect();
rmSync(folder, { recursive: true, force: true });

// --- Checks: every question answered once, in its thread; the fake saw no broken request. ---
const expected = threads * messagesPerThread;
const failures = [...result.failures, ...problems];
if (result.answers !== expected) failures.push(`${result.answers} answers for ${expected} questions`);
if (stored.runs !== expected) failures.push(`${stored.runs} answered runs in the step log for ${expected} questions`);
if (modelCalls !== expected) failures.push(`${modelCalls} model calls for ${expected} questions`);
if (leftAfterDeletion > 0) failures.push(`${leftAfterDeletion} conversations left after their threads were deleted`);
if (maxInFlight > concurrency) failures.push(`${maxInFlight} model calls at once, above the limit of ${concurrency}`);
if (failures.length > 0) throw new Error(`load bench failed:\n  ${failures.join('\n  ')}`);

// --- The table. ---
// Each thread's questions follow one another, so nothing can finish before messages × latency either.
const modelIdealMs = Math.max(Math.ceil(modelCalls / concurrency), messagesPerThread) * modelMs;
const discordIdealMs = (result.restTotal / 50) * 1000;
const idealMs = Math.max(modelIdealMs, discordIdealMs);
const binds = discordIdealMs >= modelIdealMs ? "Discord's 50 requests/s" : `the model limit (${concurrency} at once)`;
const ms = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - loopResolutionMs).toFixed(1);
const restKinds = Object.entries(result.rest)
  .sort((a, b) => b[1] - a[1])
  .map(([kind, count]) => `${kind} ${count}`)
  .join(', ');

console.log(
  `Node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, load average ${loadavg()[0]!.toFixed(2)} at the end; ` +
    `${threads} threads × ${messagesPerThread} messages, model latency ${latencyMs} ms to the first chunk (${modelMs} ms in all), MAX_CONCURRENT_RUNS=${concurrency}; every answer checked.\n`,
);
console.log('| measure | value |');
console.log('|---|--:|');
console.log(`| questions answered (each in its own thread, checked) | ${result.answers} of ${expected} |`);
console.log(`| model calls; most at once | ${modelCalls}; ${maxInFlight} |`);
console.log(
  `| REST calls (${restKinds}) | ${result.restTotal} (${(result.restTotal / expected).toFixed(2)} per run) |`,
);
console.log(`| most REST calls in any one second | ${result.maxPerSecond} |`);
console.log(
  `| ideal, model limit: max(⌈${modelCalls} calls / ${concurrency}⌉, ${messagesPerThread} in a row) × ${modelMs} ms | ${(modelIdealMs / 1000).toFixed(1)} s |`,
);
console.log(`| ideal, Discord: ${result.restTotal} calls / 50 per s | ${(discordIdealMs / 1000).toFixed(1)} s |`);
console.log(
  `| total time, first question → last answer (${binds} binds) | ${(result.totalMs / 1000).toFixed(1)} s = ${((idealMs / result.totalMs) * 100).toFixed(0)}% of ideal |`,
);
console.log(
  `| question → its answer, p50 / p99 | ${(quantile(result.latenciesMs, 0.5) / 1000).toFixed(2)} s / ${(quantile(result.latenciesMs, 0.99) / 1000).toFixed(2)} s |`,
);
console.log(
  `| a new thread: question → first answer text, p50 / p99 (the model's own time: ${modelMs} ms) | ${(quantile(result.openingLatenciesMs, 0.5) / 1000).toFixed(2)} s / ${(quantile(result.openingLatenciesMs, 0.99) / 1000).toFixed(2)} s |`,
);
console.log(
  `| a new thread: question → its model call, p50 / p99 | ${(quantile(openingToModelMs, 0.5) / 1000).toFixed(2)} s / ${(quantile(openingToModelMs, 0.99) / 1000).toFixed(2)} s |`,
);
console.log(
  `| thread creations reaching Discord, first → last (one route in one channel: one at a time) | ${(result.threadsStartedMs[0] / 1000).toFixed(2)} s → ${(result.threadsStartedMs[1] / 1000).toFixed(2)} s |`,
);
console.log(
  `| event-loop delay p50 / p99 / max | ${ms(loopDelay.percentile(50))} / ${ms(loopDelay.percentile(99))} / ${ms(loopDelay.max)} ms |`,
);
console.log(
  `| the same, in an idle node process meanwhile (the machine's share) | ${ms(idle.p50)} / ${ms(idle.p99)} / ${ms(idle.max)} ms |`,
);
console.log(
  `| bot process CPU during the load (user + system) | ${(((cpu.user + cpu.system) / 1000 / result.totalMs) * 100).toFixed(0)}% of one core |`,
);
console.log(
  `| RSS: start → peak → after the run → threads deleted | ${mib(before.rss).toFixed(0)} → ${mib(peak.rss).toFixed(0)} → ${mib(after.rss).toFixed(0)} → ${mib(afterDeletion.rss).toFixed(0)} MiB |`,
);
console.log(
  `| heap used (after gc): start → peak → after the run → threads deleted | ${mib(before.heapUsed).toFixed(1)} → ${mib(peak.heapUsed).toFixed(1)} → ${mib(after.heapUsed).toFixed(1)} → ${mib(afterDeletion.heapUsed).toFixed(1)} MiB |`,
);
console.log(
  `| discord.js caches: after the run → threads deleted | ${cached.channels} → ${cachedAfterDeletion.channels} channels, ${cached.messages} → ${cachedAfterDeletion.messages} messages |`,
);
console.log(`| SQLite after the run | ${stored.runs} runs, ${stored.messages} messages (purged with their threads) |`);
