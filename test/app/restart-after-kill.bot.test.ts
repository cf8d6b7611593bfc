/**
 * One bot per database, with `npm start` as real processes against the fakes: a live bot refuses a
 * second one, and a bot whose whole process group was SIGKILLed does not (its lock went with it,
 * even while it waits, a zombie, for PID 1 to reap it).
 */
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { runScript } from '../support/run-process.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel } from '../support/fake-model.ts';

let discord: FakeDiscord;
let model: ScriptedModel;
let databasePath: string;
const bots: BotProcess[] = [];
beforeEach(async () => {
  discord = await startFakeDiscord();
  model = await startScriptedModel();
  databasePath = join(mkdtempSync(join(tmpdir(), 'restart-')), 'bot.sqlite');
});
afterEach(async () => {
  for (const bot of bots.splice(0)) {
    // The whole group: npm and the bot under it.
    if (bot.child.exitCode === null && bot.child.signalCode === null) process.kill(-bot.child.pid!, 'SIGKILL');
    await bot.exited;
  }
  await discord.close();
  await model.close();
});

async function npmStart(): Promise<BotProcess> {
  const bot = await startBotProcess(discord, model, databasePath, {}, { npmStart: true });
  bots.push(bot);
  return bot;
}

// Each test starts two cold processes (npm, node, tsx): more than the default timeout on a busy machine.
it('a live bot refuses a second one on the same database, with one clear message', { timeout: 60_000 }, async () => {
  const bot = await npmStart();
  const pid = Number((await bot.waitForLog('ready')).pid);

  const second = await runScript('src/main.ts', {
    cwd: mkdtempSync(join(tmpdir(), 'second-')),
    env: {
      OPENAI_BASE_URL: model.baseURL,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_TOKEN: discord.token,
      DATABASE_PATH: databasePath,
    },
  });

  expect(second.code).toBe(1);
  expect(second.stderr.trim()).toBe(
    `Another bot (process ${pid} on ${hostname()}) is already using this database. Stop it first, or point DATABASE_PATH at another file.`,
  );
});

it(
  "starts again at once after npm start's process group is SIGKILLed, and answers the run the kill cut short, once",
  { timeout: 60_000 },
  async () => {
    model.enqueue({ hang: true });
    const killed = await npmStart();
    const mention = `<@${discord.botUser.id}> hello?`;
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: mention,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await discord.waitFor(() => model.requests.length === 1, { what: 'the model asked' });

    process.kill(-killed.child.pid!, 'SIGKILL');
    model.enqueue(finalAnswer('Hello, once.'));
    // At once: no wait for the killed bot to be reaped. `startBotProcess` resolves at the new bot's
    // `ready` line; a refused start would exit with the message instead.
    await npmStart();

    await discord.waitFor(() => discord.botMessages(thread.id).length === 1, { what: 'the answer' });
    expect(discord.botMessages(thread.id).map((message) => message.content)).toEqual(['Hello, once.']);
    const store = openStore(databasePath);
    expect(store.db.prepare('SELECT status FROM runs ORDER BY started_at, rowid').pluck().all()).toEqual([
      'interrupted',
      'answered',
    ]);
    store.close();
  },
);
