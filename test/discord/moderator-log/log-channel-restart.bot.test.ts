/**
 * What is logged survives a crash: a run's card owed to the log channel when `npm start`'s process
 * is SIGKILLed is posted by the next process, once. Real processes against the fakes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../../db/store.ts';
import { type BotProcess, startBotProcess } from '../../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../../support/fake-discord.ts';
import { finalAnswer, type ScriptedModel, startScriptedModel } from '../../support/fake-model.ts';

let discord: FakeDiscord;
let model: ScriptedModel;
const bots: BotProcess[] = [];
afterEach(async () => {
  for (const bot of bots.splice(0)) {
    if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill('SIGTERM');
    await bot.exited;
  }
  await discord.close();
  await model.close();
});

it('a card owed when the bot is killed is posted after the restart, once', { timeout: 90_000 }, async () => {
  discord = await startFakeDiscord();
  model = await startScriptedModel();
  const databasePath = join(mkdtempSync(join(tmpdir(), 'log-restart-')), 'bot.sqlite');
  const logChannel = await discord.createChannel('mod-log');
  const store = openStore(databasePath);
  store.placeSettings.change([
    {
      guildId: discord.guildId,
      scope: 'server',
      scopeId: discord.guildId,
      key: 'log_channel',
      value: logChannel,
      changedById: discord.users.ada,
      changedByName: 'Ada',
    },
  ]);
  store.close();
  const logPath = new RegExp(`^/channels/${logChannel}/messages$`);
  // The first post to the log channel waits out a minute's rate limit: the card is still owed at the kill.
  discord.rateLimitNext({ method: 'POST', path: logPath, retryAfterSeconds: 60 });
  model.enqueue(finalAnswer('Hello.'));
  const first = await startBotProcess(discord, model, databasePath);
  bots.push(first);
  const asked = await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `<@${discord.botUser.id}> hello?`,
    mentions: [discord.botUser.id],
  });
  await discord.waitFor(() => discord.botMessages(asked.id).length > 0, { what: 'the answer' });
  await discord.waitFor(
    () => discord.requests.some((request) => logPath.test(request.path) && request.status === 429),
    { what: 'the card held back by the rate limit' },
  );
  first.child.kill('SIGKILL');
  await first.exited;
  expect(discord.botMessages(logChannel)).toEqual([]);

  const second = await startBotProcess(discord, model, databasePath);
  bots.push(second);
  const posted = await discord.waitFor(() => discord.botMessages(logChannel)[0], {
    what: 'the card after the restart',
  });
  const cards = posted.embeds as { title: string }[];
  expect(cards.map((card) => card.title)).toEqual(['✅ Answered · Ada']);
  second.child.kill('SIGTERM');
  await second.exited;
  const after = openStore(databasePath);
  expect(after.logOutbox.guilds()).toEqual([]);
  after.close();
});
