/**
 * The personal commands through a person's own install, where no server added the bot
 * (USER_INSTALL=on): /model chooses the model of their conversation in the place, /forget-me
 * deletes what the bot keeps of that use.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../support/bot-harness.ts';
import { finalAnswer } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

const userInstall = { userInstall: true, userInstallDailyTokens: 0 };

describe('personal commands through a user install', () => {
  it('/model chooses the model of the person’s conversation in that place, among the operator’s', async () => {
    world = await startBotWorld(userInstall, {}, {}, { models: [{ name: 'small' }, { name: 'large' }] });
    const { discord } = world;
    const place = discord.addAbsentPlace('server');
    const chosen = await discord.userRunsCommand({
      name: 'model',
      options: { model: 'large' },
      author: 'bob',
      channelId: place.channelId,
    });
    expect(await chosen.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'I will answer with **large** what you ask me here.',
    });
    world.modelServers.get('large')!.enqueue(finalAnswer('From the large model.'));
    const asked = await discord.userRunsCommand({
      name: 'ask',
      options: { prompt: 'hello' },
      author: 'bob',
      channelId: place.channelId,
    });
    await world.handled('interaction', asked.id);
    expect(asked.replies().at(-1)!.content).toBe('From the large model.');
    expect(world.model.requests).toHaveLength(0);
  });

  it('/forget-me shows, then deletes, what the bot keeps of the person’s user-installed use', async () => {
    world = await startBotWorld(userInstall);
    const { discord, model } = world;
    const place = discord.addAbsentPlace('group-dm');
    model.enqueue(finalAnswer('Hi Bob.'));
    const asked = await discord.userRunsCommand({
      name: 'ask',
      options: { prompt: 'my secret is 1234' },
      author: 'bob',
      channelId: place.channelId,
    });
    await world.handled('interaction', asked.id);
    const shown = await discord.userRunsCommand({ name: 'forget-me', author: 'bob', channelId: place.channelId });
    expect((await shown.waitForReply()).content).toContain('- 1 message you wrote');
    const forgot = await discord.userRunsCommand({
      name: 'forget-me',
      options: { confirm: true },
      author: 'bob',
      channelId: place.channelId,
    });
    await world.handled('interaction', forgot.id);
    expect(forgot.replies().at(-1)!.content).toContain('Deleted for good');
    const left = world.store.db.prepare("SELECT count(*) AS n FROM messages WHERE content LIKE '%1234%'").get();
    expect(left).toEqual({ n: 0 });
    // The conversation was named by the question's words: it keeps a neutral title.
    const titles = world.store.db.prepare('SELECT title FROM conversations').pluck().all();
    expect(titles.some((title) => String(title).includes('1234'))).toBe(false);
  });
});
