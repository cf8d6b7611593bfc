/**
 * What is logged survives a crash: a run's card owed to the log channel when `npm start`'s process
 * is SIGKILLed is posted by the next process, once. Real processes against the fakes.
 */
import { expect, it } from 'vitest';
import { openStore } from '../../../db/store.ts';
import { useBotProcessWorld } from '../../support/bot-process-world.ts';
import { finalAnswer } from '../../support/fake-model.ts';

const world = useBotProcessWorld('log-restart-');

it('a card owed when the bot is killed is posted after the restart, once', { timeout: 90_000 }, async () => {
  const logChannel = await world.discord.createChannel('mod-log');
  const store = openStore(world.databasePath);
  store.placeSettings.change([
    {
      guildId: world.discord.guildId,
      scope: 'server',
      scopeId: world.discord.guildId,
      key: 'log_channel',
      value: logChannel,
      changedById: world.discord.users.ada,
      changedByName: 'Ada',
    },
  ]);
  store.close();
  const logPath = new RegExp(`^/channels/${logChannel}/messages$`);
  // The first post to the log channel waits out a minute's rate limit: the card is still owed at the kill.
  world.discord.rateLimitNext({ method: 'POST', path: logPath, retryAfterSeconds: 60 });
  world.model.enqueue(finalAnswer('Hello.'));
  const first = await world.start();
  const asked = await world.discord.userSays({
    channelId: world.discord.channels.general,
    author: 'ada',
    content: `<@${world.discord.botUser.id}> hello?`,
    mentions: [world.discord.botUser.id],
  });
  await world.discord.waitFor(() => world.discord.botMessages(asked.id).length > 0, { what: 'the answer' });
  await world.discord.waitFor(
    () => world.discord.requests.some((request) => logPath.test(request.path) && request.status === 429),
    { what: 'the card held back by the rate limit' },
  );
  first.child.kill('SIGKILL');
  await first.exited;
  expect(world.discord.botMessages(logChannel)).toEqual([]);

  const second = await world.start();
  const posted = await world.discord.waitFor(() => world.discord.botMessages(logChannel)[0], {
    what: 'the card after the restart',
  });
  const cards = posted.embeds as { title: string }[];
  expect(cards.map((card) => card.title)).toEqual(['✅ Answered · Ada']);
  second.child.kill('SIGTERM');
  await second.exited;
  const after = openStore(world.databasePath);
  expect(after.logOutbox.guilds()).toEqual([]);
  after.close();
});
