/**
 * `npm run bench:shards`: the same load on one process and on four shard processes. The bot runs
 * as `npm start` runs it (the compiled dist/main.js; with SHARD_COUNT=4 the shard manager and one
 * process per shard), against the fake Discord and a model that answers after 200 ms, each in a
 * process of its own (load-discord.ts, the fake model's echo mode). 200 people in 40 servers
 * (spread over the four shards) each mention the bot, then ask twice more in its thread: 600 runs,
 * each answer checked. The model limit is the same in all: MAX_CONCURRENT_RUNS is per process, so each of four
 * shards gets a quarter of it.
 *
 * Reported per layout: total time against Discord's 50 requests/s (REST calls / 50), REST calls in
 * the busiest second, question → answer p50/p99, and each process's memory (RSS: after start, peak).
 *
 *   npm run bench:shards [-- --threads 200 --servers 40 --shards 4 --concurrency 20]
 */
import { spawn } from 'node:child_process';
import { startLoadProcesses } from './load-processes.ts';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { LoadResult } from './load-discord.ts';
import { askChild, quantile } from './statistics.ts';
import { sized } from './smoke.ts';

const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: sized('200', '8') },
    messages: { type: 'string', default: '3' },
    servers: { type: 'string', default: '40' },
    shards: { type: 'string', default: '4' },
    latency: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '20' },
  },
});
const [threads, messages, servers, shards, latencyMs, concurrency] = [
  values.threads,
  values.messages,
  values.servers,
  values.shards,
  values.latency,
  values.concurrency,
].map(Number) as [number, number, number, number, number, number];

const ask = askChild;
const rssMiB = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return 0;
  }
};

interface Measured {
  shardCount: number;
  result: LoadResult;
  modelCalls: number;
  memory: { process: string; startMiB: number; peakMiB: number }[];
}

async function measure(shardCount: number): Promise<Measured> {
  // The same servers (ids on the same shards of `shards`) whichever layout runs.
  const { model, modelURL, discord, apiUrl, token } = await startLoadProcesses(latencyMs, {
    SERVERS: String(servers),
    SHARDS: String(shards),
    GATEWAY_MAX_CONCURRENCY: '16',
  });
  const folder = mkdtempSync(join(tmpdir(), 'bench-shards-'));
  const bot = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
    env: {
      PATH: process.env.PATH,
      DISCORD_TOKEN: token,
      DISCORD_API_URL: apiUrl,
      OPENAI_BASE_URL: modelURL,
      OPENAI_API_KEY: 'bench',
      DATABASE_PATH: join(folder, 'bot.sqlite'),
      MAX_CONCURRENT_RUNS: String(concurrency / shardCount),
      SHARD_COUNT: String(shardCount),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  bot.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const lines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; pid: number; shard?: number });
  // Each process logs `ready` once connected and caught up (the manager's `shards ready` can come before).
  while (lines().filter((line) => line.msg === 'ready').length < shardCount)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const processes = [
    ...(shardCount > 1 ? [{ process: 'manager', pid: bot.pid! }] : []),
    ...lines()
      .filter((line) => line.msg === 'ready')
      .map((line) => ({ process: line.shard === undefined ? 'the bot' : `shard ${line.shard}`, pid: line.pid })),
  ];
  const memory = processes.map(({ process, pid }) => ({ process, pid, startMiB: rssMiB(pid), peakMiB: rssMiB(pid) }));
  const sampler = setInterval(() => {
    for (const entry of memory) entry.peakMiB = Math.max(entry.peakMiB, rssMiB(entry.pid));
  }, 200);
  const modelBefore = (await ask<{ requests: number }>(model, {})).requests;
  const result = await ask<LoadResult>(discord, { type: 'load', threads, messages, timeoutMs: 600_000 }, 'result');
  clearInterval(sampler);
  const modelCalls = (await ask<{ requests: number }>(model, {})).requests - modelBefore;
  bot.kill('SIGTERM');
  const [code] = (await once(bot, 'exit')) as [number];
  const { problems } = await ask<{ problems: string[] }>(discord, { type: 'close' }, 'closed');
  discord.disconnect();
  model.disconnect();
  rmSync(folder, { recursive: true, force: true });
  const failures = [...result.failures, ...problems];
  if (result.answers !== threads * messages) failures.push(`${result.answers} answers for ${threads * messages}`);
  if (code !== 0) failures.push(`the bot exited with ${code} on SIGTERM`);
  if (failures.length > 0) throw new Error(`${shardCount} shard(s): ${failures.join('; ')}`);
  return { shardCount, result, modelCalls, memory };
}

const runs = [await measure(1), await measure(shards)];
const seconds = (ms: number) => (ms / 1000).toFixed(2);
console.log(
  `Node ${process.version}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)} at the end; ${threads} threads × ${messages} messages over ${servers} servers, model ${latencyMs} ms to the first chunk, ${concurrency} model calls at once in all; every answer checked.\n`,
);
console.log(
  `| measure | ${runs.map((run) => (run.shardCount === 1 ? 'one process' : `${run.shardCount} shards`)).join(' | ')} |`,
);
console.log(`|---|${runs.map(() => '--:').join('|')}|`);
const row = (name: string, cell: (run: Measured) => string) =>
  console.log(`| ${name} | ${runs.map(cell).join(' | ')} |`);
row('questions answered (checked)', (run) => `${run.result.answers} of ${threads * messages}`);
row('REST calls (per run)', (run) => `${run.result.restTotal} (${(run.result.restTotal / run.modelCalls).toFixed(2)})`);
row('ideal, Discord: REST calls / 50 per s', (run) => `${seconds((run.result.restTotal / 50) * 1000)} s`);
row('total time, first question → last answer', (run) => `${seconds(run.result.totalMs)} s`);
row('throughput, REST calls per s (Discord allows 50)', (run) =>
  ((run.result.restTotal / run.result.totalMs) * 1000).toFixed(1),
);
row('most REST calls in any one second', (run) => String(run.result.maxPerSecond));
row(
  'question → answer, p50 / p99',
  (run) => `${seconds(quantile(run.result.latenciesMs, 0.5))} / ${seconds(quantile(run.result.latenciesMs, 0.99))} s`,
);
row(
  'a new thread: question → first answer text, p99',
  (run) => `${seconds(quantile(run.result.openingLatenciesMs, 0.99))} s`,
);
row('RSS per process: ready → peak (MiB)', (run) =>
  run.memory.map((entry) => `${entry.process} ${entry.startMiB.toFixed(0)} → ${entry.peakMiB.toFixed(0)}`).join('; '),
);
row('RSS in all, peak (MiB)', (run) => run.memory.reduce((sum, entry) => sum + entry.peakMiB, 0).toFixed(0));
