/**
 * `npm run bench:cold-start`: from starting the process to "ready", as `npm start` runs it (node on
 * the compiled dist/main.js, with --enable-source-maps), against the alternatives: the same
 * without source maps, and the TypeScript through tsx's loader (`npm run dev`, and `npm start`
 * before it was compiled), against the fake Discord. Each round starts the bot twice on
 * a new fake and a new database: first as a new install (the slash commands are registered), then
 * again (a restart: the commands are unchanged, nothing is sent). "Ready" is the bot's `ready` log
 * line, which it writes once connected and with its commands synced; the bench checks that the
 * fake holds every command by then. Median of the rounds (the first round, which may fill tsx's
 * cache of transformed files, counts like the others).
 *
 * The first answer: at the restart, the moment `ready` is logged, Ada mentions the bot; from
 * process start to her answer in its thread (the model, in its own fake, answers at once, not
 * streamed). What the bot defers past ready (the token encoding) is paid here if anywhere.
 *
 *   npm run bench:cold-start [-- --rounds 7]
 *   npm run bench:cold-start -- --rounds 1 --only npm-start --cpu-prof-dir /tmp/start   # profile a start
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { commands } from '../commands/index.ts';
import { type FakeDiscord, startFakeDiscord } from '../test/support/fake-discord.ts';
import { type EchoModel, startEchoModel } from '../test/support/fake-model.ts';
import { projectRoot, tsxLoader } from '../test/support/run-process.ts';
import { sized } from './smoke.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: sized('7', '1') },
    /** One way alone: npm-start, no-source-maps or tsx. */
    only: { type: 'string' },
    /** Each start writes a CPU profile here (node --cpu-prof), to read with `npm run bench:profile`. */
    'cpu-prof-dir': { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const profiling = values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof-dir']}`] : [];

interface Start {
  /** Process start → the first REST request to Discord (node, tsx, imports, settings, database). */
  toFirstRequestMs: number;
  /** Process start → `ready` (connected, guild received, commands synced). */
  toReadyMs: number;
  /** REST requests made while starting. */
  requests: number;
  /** Process start → the answer to a mention sent the moment `ready` was logged (the restart only). */
  toFirstAnswerMs: number | null;
}

/** The ways of starting compared: node's arguments for each. */
const ways = {
  'compiled, --enable-source-maps (npm start)': ['--enable-source-maps', `${projectRoot}dist/main.js`],
  'compiled, without source maps': [`${projectRoot}dist/main.js`],
  'TypeScript through tsx (npm run dev)': ['--import', tsxLoader, `${projectRoot}src/main.ts`],
};
type Way = keyof typeof ways;
const shortNames: Record<string, Way> = {
  'npm-start': 'compiled, --enable-source-maps (npm start)',
  'no-source-maps': 'compiled, without source maps',
  tsx: 'TypeScript through tsx (npm run dev)',
};
if (values.only !== undefined && !shortNames[values.only])
  throw new Error(`--only takes ${Object.keys(shortNames).join(', ')}, not ${values.only}`);
const chosenWays = values.only === undefined ? (Object.keys(ways) as Way[]) : [shortNames[values.only]!];

/** Starts the bot one way, waits for `ready`, checks the commands, then stops it with SIGTERM. */
async function startOnce(
  discord: FakeDiscord,
  databasePath: string,
  way: Way,
  model: EchoModel,
  ask: boolean,
): Promise<Start> {
  const firstRequest = discord.requests.length;
  const started = performance.now();
  const child = spawn(process.execPath, [...profiling, ...ways[way]], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // Never called while starting; a loopback address all the same.
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'bench',
      STREAM_ANSWERS: 'off',
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_TOKEN: discord.token,
      DATABASE_PATH: databasePath,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const readyAt = await readyLine(child);
  const registered = discord.registeredCommands().length;
  if (registered !== commands.length)
    throw new Error(`ready with ${registered} of ${commands.length} commands registered`);
  const requests = discord.requests.slice(firstRequest);
  const toFirstAnswerMs = ask ? (await firstAnswer(discord)) - started : null;
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the bot exited with ${code} after SIGTERM`);
  return {
    toFirstRequestMs: requests[0]!.time - started,
    toReadyMs: readyAt - started,
    requests: requests.length,
    toFirstAnswerMs,
  };
}

/** Ada mentions the bot; resolves with the time its answer is in the thread it opens. */
async function firstAnswer(discord: FakeDiscord): Promise<number> {
  const threads = discord.threads().length;
  await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `<@${discord.botUser.id}> [t1m1] are you there?`,
    mentions: [discord.botUser.id],
  });
  const thread = await discord.waitFor(() => discord.threads()[threads]);
  await discord.waitFor(() => discord.botMessages(thread.id).some((message) => message.content.includes('t1m1')));
  return performance.now();
}

/** Resolves with the time the `ready` log line arrived; rejects if the process ends first. */
function readyLine(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      const now = performance.now();
      stdout += chunk.toString();
      if (
        stdout
          .split('\n')
          .some((line) => line.startsWith('{') && (JSON.parse(line) as { msg?: string }).msg === 'ready')
      )
        resolve(now);
    });
    child.on('close', (code) =>
      reject(new Error(`the bot exited (${code}) before ready:\n${stderr.slice(0, 1000)}\n${stdout.slice(-1000)}`)),
    );
  });
}

execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: projectRoot, stdio: 'inherit' });
const firstStarts = new Map<Way, Start[]>();
const restarts = new Map<Way, Start[]>();
// The ways take turns within each round, so that the machine's moods fall on all of them alike.
for (let round = 0; round < rounds; round++) {
  for (const way of chosenWays) {
    const discord = await startFakeDiscord();
    const model = await startEchoModel({ latencyMs: 0, streamPieces: 1 });
    const folder = mkdtempSync(join(tmpdir(), 'bench-cold-start-'));
    try {
      firstStarts.set(way, [
        ...(firstStarts.get(way) ?? []),
        await startOnce(discord, join(folder, 'bot.sqlite'), way, model, false),
      ]);
      restarts.set(way, [
        ...(restarts.get(way) ?? []),
        await startOnce(discord, join(folder, 'bot.sqlite'), way, model, true),
      ]);
    } finally {
      await Promise.all([discord.close(), model.close()]);
      rmSync(folder, { recursive: true, force: true });
    }
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
console.log(
  `Node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${rounds} rounds, each on a new fake Discord and database; ${commands.length} commands.\n`,
);
console.log(
  '| way | start | to the first request to Discord, median ms | to ready, median ms | range ms | REST requests | to the first answer (asked at ready), median ms |',
);
console.log('|---|---|--:|--:|--:|--:|--:|');
for (const way of chosenWays) {
  for (const [name, starts] of [
    ['first start (commands registered)', firstStarts.get(way)!],
    ['restart (commands unchanged)', restarts.get(way)!],
  ] as const) {
    const toReady = starts.map((start) => start.toReadyMs);
    const answers = starts.flatMap((start) => (start.toFirstAnswerMs === null ? [] : [start.toFirstAnswerMs]));
    const answer = answers.length > 0 ? median(answers).toFixed(0) : '';
    console.log(
      `| ${way} | ${name} | ${median(starts.map((start) => start.toFirstRequestMs)).toFixed(0)} | ${median(toReady).toFixed(0)} | ${range(toReady)} | ${median(starts.map((start) => start.requests))} | ${answer} |`,
    );
  }
}
