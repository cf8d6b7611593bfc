/**
 * `node --import tsx bench/restart-after-kill.ts`: how long a restart takes after the bot was SIGKILLed, against
 * the fake Discord, on a new database each round. Two ways to be killed:
 *
 * - `group` (the default): `npm start` runs in a process group of its own and the whole group is
 *   SIGKILLed (a crash, `docker kill`, the OOM killer); the bot's parent dies with it, so the bot
 *   stays a zombie until PID 1 reaps it.
 * - `zombie`: the bot's parent is alive but never reaps it (`sh -c 'bot & exec sleep'`), and only
 *   the bot is SIGKILLed: it stays a zombie for as long as the parent lives.
 *
 * Then `npm start` at once, again and again while it is refused because the killed bot still seems
 * to use the database (as a supervisor would). Measured: SIGKILL → the new bot's `ready` line, and
 * the starts refused on the way.
 *
 *   node --import tsx bench/restart-after-kill.ts [--rounds 5] [--kill group|zombie]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type FakeDiscord, startFakeDiscord } from '../test/support/fake-discord.ts';
import { processState } from '../test/support/process-state.ts';
import { projectRoot, tsxLoader } from '../test/support/run-process.ts';
import { sized } from './smoke.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: sized('5', '1') }, kill: { type: 'string', default: 'group' } },
});
const rounds = Number(values.rounds);
if (values.kill !== 'group' && values.kill !== 'zombie') {
  throw new Error(
    "--kill is group (npm start's process group) or zombie (the bot alone, under a parent that does not reap it)",
  );
}
const kill = values.kill;

interface Started {
  /** The process group's leader. */
  child: ChildProcess;
  /** The bot's own pid, from its log line. */
  botPid: number;
}

/** Starts `command` in a process group of its own; resolves at the bot's `ready`, or with the exit code and stderr if it stops first. */
type Outcome = Started | { code: number | null; stderr: string };

function start(discord: FakeDiscord, databasePath: string, command: string, args: string[]): Promise<Outcome> {
  const child = spawn(command, args, {
    cwd: projectRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_API_KEY: 'bench',
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_TOKEN: discord.token,
      DATABASE_PATH: databasePath,
      LOG_LEVEL: 'info',
    },
  });
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of stdout.split('\n').slice(0, -1)) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; pid?: number };
        if (entry.msg === 'ready') resolve({ child, botPid: entry.pid! });
      }
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const npmStart = (discord: FakeDiscord, databasePath: string) =>
  start(discord, databasePath, 'npm', ['start', '--silent']);
/** The bot under a parent that never waits for it: sh starts it in the background and becomes `sleep`. */
const unreapedStart = (discord: FakeDiscord, databasePath: string) =>
  start(discord, databasePath, 'sh', [
    '-c',
    `"${process.execPath}" --import ${tsxLoader} ${projectRoot}src/main.ts & exec sleep 600`,
  ]);

interface Round {
  restartMs: number;
  refused: number;
  /** The killed bot's state in /proc when the new one was ready: Z (a zombie), or gone (reaped). */
  killedBotAtReady: string;
  refusal: string;
}

const results: Round[] = [];
for (let round = 0; round < rounds; round++) {
  const discord = await startFakeDiscord();
  const folder = mkdtempSync(join(tmpdir(), 'bench-restart-'));
  const databasePath = join(folder, 'bot.sqlite');
  let first: Started | undefined;
  try {
    const started =
      kill === 'group' ? await npmStart(discord, databasePath) : await unreapedStart(discord, databasePath);
    if (!('botPid' in started)) throw new Error(`the first start failed (${started.code}): ${started.stderr}`);
    first = started;
    if (kill === 'group') process.kill(-first.child.pid!, 'SIGKILL');
    else process.kill(first.botPid, 'SIGKILL');
    const killedAt = performance.now();
    let refused = 0;
    let refusal = '';
    for (;;) {
      const next = await npmStart(discord, databasePath);
      if ('botPid' in next) {
        results.push({
          restartMs: performance.now() - killedAt,
          refused,
          killedBotAtReady: processState(first.botPid) ?? 'gone',
          refusal,
        });
        process.kill(-next.child.pid!, 'SIGTERM');
        await new Promise((resolve) => next.child.on('close', resolve));
        break;
      }
      if (!next.stderr.includes('already using this database'))
        throw new Error(`the restart failed (${next.code}): ${next.stderr}`);
      refused++;
      refusal ||= next.stderr.trim();
    }
  } finally {
    // The parent that does not reap, in the zombie case.
    if (first && kill === 'zombie') process.kill(-first.child.pid!, 'SIGKILL');
    discord.takeProblems();
    await discord.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)]!;
console.log(
  `Node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${rounds} rounds; killed: ${kill}.\n`,
);
console.log('| round | the killed bot when the new one was ready | starts refused | SIGKILL → ready, ms |');
console.log('|--:|---|--:|--:|');
results.forEach((result, index) =>
  console.log(`| ${index + 1} | ${result.killedBotAtReady} | ${result.refused} | ${result.restartMs.toFixed(0)} |`),
);
console.log(`\nmedian SIGKILL → ready: ${median(results.map((result) => result.restartMs)).toFixed(0)} ms`);
const refusal = results.find((result) => result.refusal)?.refusal;
if (refusal) console.log(`a refusal said: ${refusal}`);
