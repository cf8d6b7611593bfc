/**
 * Growing from one process to two shards, as docs/scaling.md tells an operator to: the bot runs
 * unsharded, stops; sharded without moving, the start is refused with what to do; after
 * `npm run reshard`, each shard answers its servers' old threads with their memory.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { shardDatabasePath } from '../../src/shards/shard-plan.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { projectRoot, runScript } from '../support/run-process.ts';
import { answered as answeredIn, echo, serversIn } from '../support/shard-checks.ts';
import { type ScriptedModel, startScriptedModel } from '../support/fake-model.ts';

let discord: FakeDiscord | undefined;
let model: ScriptedModel | undefined;
let bot: BotProcess | undefined;
let databasePath: string;
afterEach(async () => {
  if (bot && bot.child.exitCode === null) {
    bot.child.kill('SIGTERM');
    await bot.exited;
  }
  await discord?.close();
  await model?.close();
});

const answered = (threadId: string, text: string) => answeredIn(discord!, threadId, text);

/** `npm start` that is expected to refuse: its exit code and output. */
const startAndExit = (env: Record<string, string>) =>
  runScript('src/main.ts', {
    cwd: projectRoot,
    env: {
      DISCORD_TOKEN: discord!.token,
      DISCORD_API_URL: discord!.apiUrl,
      OPENAI_BASE_URL: model!.baseURL,
      DATABASE_PATH: databasePath,
      ...env,
    },
  });

async function stop(): Promise<void> {
  bot!.child.kill('SIGTERM');
  expect(await bot!.exited).toBe(0);
}

it('one process → two shards: refused until npm run reshard has moved the servers, then each shard answers its old threads with their memory', async () => {
  discord = await startFakeDiscord({ maxConcurrency: 16 });
  model = await startScriptedModel();
  databasePath = join(mkdtempSync(join(tmpdir(), 'reshard-')), 'bot.sqlite');
  const second = discord.addGuild('Second Server', { shard: [1, 2] });

  // One process: both servers' conversations in one database.
  bot = await startBotProcess(discord, model, databasePath);
  model.enqueue(echo);
  const asked = await discord.userSays({
    channelId: second.generalId,
    author: 'ada',
    content: `<@${discord.botUser.id}> what is the capital of Peru?`,
    mentions: [discord.botUser.id],
  });
  await answered(asked.id, 'answer to what is the capital of Peru?');
  await stop();
  expect(serversIn(databasePath)).toEqual([second.guildId]);

  // Two shards, nothing moved: shard 0's database holds a server that is shard 1's now: refused, with what to do.
  const identified = () => discord!.gatewayPayloads.filter((payload) => payload.op === 2).length;
  const before = identified();
  const refused = await startAndExit({ SHARD_COUNT: '2' });
  expect(refused.code).toBe(1);
  // Plain text on stderr, as every refusal to start (it was a JSON log line).
  expect(refused.stderr).toContain(
    `Cannot start: with 2 shard(s), ${databasePath} holds 1 server(s) of other shards (${second.guildId} → shard 1).`,
  );
  expect(refused.stderr).toContain('run npm run reshard -- --shard-count 2');
  expect(identified()).toBe(before); // no shard connected

  const reshard = await runScript('src/reshard.ts', {
    cwd: projectRoot,
    args: ['--shard-count', '2'],
    env: { DATABASE_PATH: databasePath },
  });
  expect(reshard.stderr).toBe('');
  expect(reshard.code).toBe(0);
  expect(reshard.stdout).toContain(
    `Moved server ${second.guildId} from ${databasePath} to ${shardDatabasePath(databasePath, 1)}`,
  );
  expect(reshard.stdout).toContain('Moved 1 server(s) for SHARD_COUNT=2.');
  expect(serversIn(databasePath)).toEqual([]);
  expect(serversIn(shardDatabasePath(databasePath, 1))).toEqual([second.guildId]);
  // Again: nothing left to do.
  const again = await runScript('src/reshard.ts', {
    cwd: projectRoot,
    args: ['--shard-count', '2'],
    env: { DATABASE_PATH: databasePath },
  });
  expect(again).toMatchObject({
    code: 0,
    stdout: expect.stringContaining('Every server is in its shard’s database already'),
  });

  // Sharded, after the move: shard 1 answers the old thread, remembering what was said there.
  bot = await startBotProcess(discord, model, databasePath, { SHARD_COUNT: '2' });
  await bot.waitForLog('shards ready', 30_000);
  model.enqueue((request) => {
    expect(request.messages.map((message) => message.content)).toContain('Ada: what is the capital of Peru?');
    return echo(request);
  });
  await discord.userSays({ channelId: asked.id, author: 'ada', content: 'and of Chile?' });
  await answered(asked.id, 'answer to and of Chile?');
  await stop();

  // Back to one process with shard 1's file still holding that server: refused too, until resharded.
  const back = await startAndExit({});
  expect(back.code).toBe(1);
  expect(back.stderr).toContain(
    `Cannot start: with 1 shard(s), ${shardDatabasePath(databasePath, 1)} holds 1 server(s)`,
  );
}, 90_000);
