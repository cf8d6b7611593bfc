/**
 * Sharding end to end: `npm start`'s compiled bot with SHARD_COUNT as the shard manager, one real
 * process per shard (discord.js's ShardingManager), against the fake Discord, which routes each
 * server's events to its shard's session as Discord does.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shardDatabasePath } from '../../src/shards/shard-plan.ts';
import { healthFilePath } from '../../src/health/health-file.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { projectRoot, runScript } from '../support/run-process.ts';
import { answered as answeredIn, echo, serversIn } from '../support/shard-checks.ts';
import { type ScriptedModel, startScriptedModel } from '../support/fake-model.ts';

let discord: FakeDiscord | undefined;
let model: ScriptedModel | undefined;
let bot: BotProcess | undefined;
afterEach(async () => {
  if (bot && bot.child.exitCode === null) {
    bot.child.kill('SIGTERM');
    await bot.exited;
  }
  bot = undefined;
  await discord?.close();
  await model?.close();
});

const newDatabasePath = () => join(mkdtempSync(join(tmpdir(), 'shards-')), 'bot.sqlite');

/** Ada mentions the bot in a server's #general; resolves with the conversation's thread. */
async function adaAsks(channelId: string, question: string) {
  const asked = await discord!.userSays({
    channelId,
    author: 'ada',
    content: `<@${discord!.botUser.id}> ${question}`,
    mentions: [discord!.botUser.id],
  });
  return discord!.waitFor(() => discord!.channel(asked.id), { what: `the thread of "${question}"` });
}

const answered = (threadId: string, text: string) => answeredIn(discord!, threadId, text);

/** Log lines of the shard processes (they share the manager's stdout), each with its `shard`. */
const shardLines = (msg: string) =>
  bot!.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; shard?: number; pid: number })
    .filter((line) => line.msg === msg && line.shard !== undefined);

/**
 * Resolves once every shard process logged `ready`: caught up and keeping its health file (the
 * manager's "shards ready" comes when discord.js's clients are ready, which is sooner).
 */
const allReady = (count: number) =>
  discord!.waitFor(() => new Set(shardLines('ready').map((line) => line.shard)).size === count, {
    what: `${count} shards ready`,
    timeoutMs: 15_000,
  });

/** The manager's own log lines (it has no `shard` field). */
const managerLines = (msg: string) =>
  bot!.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; shard?: number; restartInMs?: number })
    .filter((line) => line.msg === msg && line.restartInMs !== undefined);

/** Whether a process has exited (a zombie counts: it is gone, its parent just has not reaped it). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

const commandRegistrations = () =>
  discord!.requests.filter((request) => request.method === 'PUT' && request.path.endsWith('/commands'));

/** The shards each of a server's messages (people's and the bot's) was sent to. */
const shardsReached = (guildId: string) => [
  ...new Set(
    discord!.dispatches
      .filter(
        (dispatch) => dispatch.t === 'MESSAGE_CREATE' && (dispatch.d as { guild_id?: string }).guild_id === guildId,
      )
      .map((dispatch) => JSON.stringify(dispatch.shards)),
  ),
];

describe('a sharded bot', () => {
  it('two shards: each server is answered by its own shard, from its own database; the commands are registered once; a killed shard comes back and catches up on its servers alone', async () => {
    discord = await startFakeDiscord({ maxConcurrency: 16 });
    model = await startScriptedModel();
    const databasePath = newDatabasePath();
    // The seeded server falls on shard 0 of 2; a second server is made to fall on shard 1.
    const second = discord.addGuild('Second Server', { shard: [1, 2] });
    bot = await startBotProcess(discord, model, databasePath, { SHARD_COUNT: '2' });
    await bot.waitForLog('shards ready', 30_000);
    await allReady(2);
    expect(discord.gatewaySessions().map((session) => session.shard)).toEqual([
      [0, 2],
      [1, 2],
    ]);

    model.enqueue(echo, echo);
    const [first, other] = await Promise.all([
      adaAsks(discord.channels.general, 'one?'),
      adaAsks(second.generalId, 'two?'),
    ]);
    await answered(first.id, 'answer to one?');
    await answered(other.id, 'answer to two?');
    expect(shardsReached(discord.guildId)).toEqual(['[0]']);
    expect(shardsReached(second.guildId)).toEqual(['[1]']);
    expect(serversIn(databasePath)).toEqual([discord.guildId]);
    expect(serversIn(shardDatabasePath(databasePath, 1))).toEqual([second.guildId]);
    expect(commandRegistrations()).toHaveLength(1);
    // The container's health check asks every shard of the host.
    const health = () => runScript('src/health.ts', { cwd: projectRoot, env: { DATABASE_PATH: databasePath } });
    expect(await health()).toMatchObject({
      code: 0,
      stdout: `healthy: 2 shards, all connected to Discord (read ${healthFilePath(databasePath)}, ${healthFilePath(shardDatabasePath(databasePath, 1))})\n`,
    });

    // Shard 1's process dies; Ada writes in its server's thread meanwhile.
    const [shard0] = shardLines('ready').filter((line) => line.shard === 0);
    const [shard1] = shardLines('ready').filter((line) => line.shard === 1);
    process.kill(shard1!.pid, 'SIGKILL');
    await discord.waitFor(() => !discord!.gatewaySessions().some((session) => session.shard[0] === 1 && session.open), {
      what: "shard 1's connection gone",
    });
    await discord.userSays({ channelId: other.id, author: 'ada', content: 'still there?' });
    model.enqueue(echo);
    await answered(other.id, 'answer to still there?');

    // Started again by the manager, as a new process with a new session; shard 0 never noticed.
    // Waited for: the message caught up on may be answered before the process logs "ready" (its
    // run starts while the channels are still being read back).
    await discord.waitFor(() => shardLines('ready').filter((line) => line.shard === 1).length === 2, {
      what: 'shard 1 ready again',
    });
    const restarted = shardLines('ready').filter((line) => line.shard === 1);
    // Killed again soon after: the manager waits twice as long before the next start.
    process.kill(restarted[1]!.pid, 'SIGKILL');
    await discord.waitFor(() => shardLines('ready').filter((line) => line.shard === 1).length === 3, {
      what: 'shard 1 ready a third time',
      timeoutMs: 15_000,
    });
    const restarts = managerLines('shard process exited: starting it again');
    expect(restarts.map((line) => [line.shard, line.restartInMs])).toEqual([
      [1, 1000],
      [1, 2000],
    ]);
    restarted.push(shardLines('ready').filter((line) => line.shard === 1)[2]!);
    expect(restarted[1]!.pid).not.toBe(shard1!.pid);
    expect(shardLines('ready').filter((line) => line.shard === 0)).toEqual([shard0]);
    expect(discord.gatewaySessions().filter((session) => session.shard[0] === 0)).toHaveLength(1);
    expect(discord.botMessages(first.id).map((message) => message.content)).toEqual(['answer to one?']);
    expect(commandRegistrations()).toHaveLength(1);
    expect(model.requests).toHaveLength(3);

    // SIGTERM reaches every shard: each stops cleanly, and the manager exits 0.
    bot.child.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
    for (const pid of [shard0!.pid, restarted[2]!.pid]) expect(gone(pid)).toBe(true);
    expect(await health()).toMatchObject({ code: 1 });
  }, 60_000);

  it("SHARD_COUNT=auto takes Discord's recommendation: four shards, each server answered by its own", async () => {
    discord = await startFakeDiscord({ maxConcurrency: 16, recommendedShards: 4 });
    model = await startScriptedModel();
    // A first start: the database's folder does not exist yet.
    const databasePath = join(dirname(newDatabasePath()), 'data', 'bot.sqlite');
    // The seeded server falls on shard 2 of 4; one more on shard 1 and one on shard 3 (shard 0 has none).
    const servers = [
      { guildId: discord.guildId, generalId: discord.channels.general, shard: 2 },
      { ...discord.addGuild('Shard one', { shard: [1, 4] }), shard: 1 },
      { ...discord.addGuild('Shard three', { shard: [3, 4] }), shard: 3 },
    ];
    bot = await startBotProcess(discord, model, databasePath, { SHARD_COUNT: 'auto' });
    await bot.waitForLog('shards ready', 45_000);
    await allReady(4);
    expect(discord.gatewaySessions().map((session) => session.shard[0])).toEqual([0, 1, 2, 3]);

    model.enqueue(echo, echo, echo);
    const threads = await Promise.all(servers.map((server, index) => adaAsks(server.generalId, `q${index}?`)));
    for (const [index, thread] of threads.entries()) await answered(thread.id, `answer to q${index}?`);
    for (const server of servers) {
      expect(shardsReached(server.guildId)).toEqual([`[${server.shard}]`]);
      expect(serversIn(shardDatabasePath(databasePath, server.shard))).toEqual([server.guildId]);
    }
    expect(serversIn(databasePath)).toEqual([]);
    expect(commandRegistrations()).toHaveLength(1);

    // The manager killed outright: each shard process, cut off from it, stops by itself.
    const shardPids = shardLines('ready').map((line) => line.pid);
    bot.child.kill('SIGKILL');
    await bot.exited;
    await discord.waitFor(() => shardPids.every(gone), { what: 'every shard process gone', timeoutMs: 15_000 });
    expect(discord.gatewaySessions().filter((session) => session.open)).toEqual([]);
  }, 90_000);
});

describe('a sharded start refused', () => {
  it('a rejected token is said as for one process, and no shard is started', async () => {
    discord = await startFakeDiscord();
    model = await startScriptedModel();
    const refused = await runScript('src/main.ts', {
      cwd: projectRoot,
      env: {
        SHARD_COUNT: '2',
        DISCORD_TOKEN: 'not-the-token',
        DISCORD_API_URL: discord.apiUrl,
        OPENAI_BASE_URL: model.baseURL,
        DATABASE_PATH: newDatabasePath(),
      },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Discord rejected DISCORD_TOKEN.');
    expect(discord.gatewayPayloads).toEqual([]);
    discord.takeProblems();
  });
});

describe('SHARD_IDS without SHARD_COUNT', () => {
  it('is refused with one message before Discord is asked anything', async () => {
    discord = await startFakeDiscord();
    const refused = await runScript('src/main.ts', {
      cwd: projectRoot,
      env: {
        SHARD_IDS: '2-3',
        DISCORD_TOKEN: discord.token,
        DISCORD_API_URL: discord.apiUrl,
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        DATABASE_PATH: newDatabasePath(),
      },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('SHARD_IDS needs SHARD_COUNT');
    expect(discord.requests).toEqual([]);
  });
});

describe('not sharded', () => {
  it('a blank SHARD_COUNT and SHARD_IDS in the environment (docker run --env-file with .env.example) run one process, as before', async () => {
    discord = await startFakeDiscord();
    model = await startScriptedModel();
    bot = await startBotProcess(discord, model, newDatabasePath(), { SHARD_COUNT: '', SHARD_IDS: '' });
    expect(discord.gatewaySessions()).toEqual([{ shard: [0, 1], open: true }]);
    model.enqueue(echo);
    const thread = await adaAsks(discord.channels.general, 'alone?');
    await answered(thread.id, 'answer to alone?');
  });
});
