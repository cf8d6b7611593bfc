/**
 * `npm start` stopped the way systemd, pm2 or `kill <pid>` stop it: SIGTERM to npm alone. npm 11
 * passes the signal to the shell it runs the script in, not to node; the shell dies of it, npm
 * exits, and node is left to PID 1. The bot (or the shard manager) notices its parent is gone and
 * stops as on its own SIGTERM: the lock is let go, the health check says so, and a new start works.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { processState } from '../support/process-state.ts';
import { runScript } from '../support/run-process.ts';
import { type ScriptedModel, startScriptedModel } from '../support/fake-model.ts';

let discord: FakeDiscord;
let model: ScriptedModel;
let databasePath: string;
const bots: BotProcess[] = [];
/** Every node process a test saw, killed at the end if still there (an orphan is no child of the test's). */
const pids = new Set<number>();
beforeEach(async () => {
  discord = await startFakeDiscord();
  model = await startScriptedModel();
  databasePath = join(mkdtempSync(join(tmpdir(), 'npm-stop-')), 'bot.sqlite');
});
afterEach(async () => {
  for (const pid of pids) if (!gone(pid)) process.kill(pid, 'SIGKILL');
  pids.clear();
  for (const bot of bots.splice(0)) {
    if (bot.child.exitCode === null && bot.child.signalCode === null) process.kill(-bot.child.pid!, 'SIGKILL');
  }
  await discord.close();
  await model.close();
});

/** Exited (a zombie counts: its new parent may not reap it). */
const gone = (pid: number) => ['Z', null].includes(processState(pid));

async function npmStart(env: Record<string, string> = {}): Promise<BotProcess> {
  const bot = await startBotProcess(discord, model, databasePath, env, { npmStart: true });
  bots.push(bot);
  return bot;
}

/** The pids of the node processes that logged `msg`, once `count` of them have. */
async function loggedBy(bot: BotProcess, msg: string, count: number): Promise<number[]> {
  const lines = () =>
    bot.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; pid: number })
      .filter((line) => line.msg === msg);
  await discord.waitFor(() => lines().length >= count, { what: `${count} "${msg}" lines`, timeoutMs: 30_000 });
  const found = [...new Set(lines().map((line) => line.pid))];
  for (const pid of found) pids.add(pid);
  return found;
}

/** SIGTERM to npm alone, as a process manager sends it; resolves when npm has exited. */
async function stopNpm(bot: BotProcess): Promise<void> {
  const exited = new Promise((resolve) => bot.child.once('exit', resolve));
  process.kill(bot.child.pid!, 'SIGTERM');
  await exited;
}

const health = () => runScript('src/health.ts', { cwd: tmpdir(), env: { DATABASE_PATH: databasePath } });

// Each test starts cold processes (npm, node) twice: more than the default timeout on a busy machine.
it(
  'SIGTERM to npm alone stops the bot as its own SIGTERM would, and the next start succeeds',
  { timeout: 60_000 },
  async () => {
    const bot = await npmStart();
    const [pid] = await loggedBy(bot, 'ready', 1);
    expect((await health()).code).toBe(0);

    await stopNpm(bot);

    await discord.waitFor(() => gone(pid!), { what: 'the bot process gone', timeoutMs: 15_000 });
    expect(bot.stdout).toContain('"msg":"shutting down"');
    expect(discord.gatewaySessions().filter((session) => session.open)).toEqual([]);
    expect(await health()).toMatchObject({ code: 1 });
    const again = await npmStart();
    await loggedBy(again, 'ready', 1);
  },
);

it(
  'sharded: SIGTERM to npm alone stops the manager and every shard, and the next start succeeds',
  { timeout: 90_000 },
  async () => {
    discord.addGuild('Shard one', { shard: [1, 2] });
    const bot = await npmStart({ SHARD_COUNT: '2' });
    const shardPids = await loggedBy(bot, 'ready', 2);
    const [managerPid] = await loggedBy(bot, 'starting the shards', 1);

    await stopNpm(bot);

    await discord.waitFor(() => [managerPid!, ...shardPids].every(gone), {
      what: 'the manager and its shards gone',
      timeoutMs: 20_000,
    });
    expect(bot.stdout).toContain('"msg":"shutting down the shards"');
    expect(discord.gatewaySessions().filter((session) => session.open)).toEqual([]);
    const again = await npmStart({ SHARD_COUNT: '2' });
    await loggedBy(again, 'ready', 2);
  },
);
