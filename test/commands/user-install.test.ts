/**
 * The personal commands through a person's own install, where no server added the bot
 * (USER_INSTALL=on): /model chooses the model of their conversation in the place, /forget-me
 * deletes what the bot keeps of that use, /usage shows the person's own use of it today.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../support/bot-harness.ts';
import { finalAnswer } from '../support/fake-model.ts';
import { PermissionFlagsBits } from 'discord.js';
import { formatCount } from '../../src/text/count.ts';
import { seedIds } from '../support/fake-discord/world.ts';

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

  it('/usage shows the person their own use through their install today and the shared budget, nobody else’s', async () => {
    world = await startBotWorld({ userInstall: true, userInstallDailyTokens: 50_000 });
    const { discord, model } = world;
    const place = discord.addAbsentPlace('group-dm');
    model.enqueue(finalAnswer('Hi Bob.'), finalAnswer('Hi Cy.'));
    for (const author of ['bob', { id: '200000000000000099', username: 'cy' }] as const) {
      const asked = await discord.userRunsCommand({
        name: 'ask',
        options: { prompt: 'hello' },
        author,
        channelId: place.channelId,
      });
      await world.handled('interaction', asked.id);
    }
    const [bobs, shared] = world.store.db
      .prepare(
        "SELECT (SELECT total_tokens FROM runs r JOIN conversations c ON c.id = r.conversation_id WHERE c.key LIKE ?), (SELECT sum(tokens) FROM guild_usage_days WHERE guild_id = '@user-install')",
      )
      .raw()
      .get(`user-install:${seedIds.bob}:%`) as [number, number];
    expect(bobs).toBeGreaterThan(0);
    const shown = await discord.userRunsCommand({ name: 'usage', author: 'bob', channelId: place.channelId });
    expect(await shown.waitForReply()).toMatchObject({
      ephemeral: true,
      content: `Your use of me through your own install today (UTC): ${formatCount(bobs)} tokens, 1 run.\nEveryone's use through their own install together: ${formatCount(shared)} of 50,000 tokens today.`,
    });
  });

  it('/usage is registered for user installs, with the moderators’ menu visibility servers apply everywhere', async () => {
    world = await startBotWorld({ userInstall: true });
    const usage = await world.discord.waitFor(() =>
      world.discord.registeredCommands().find((command) => command.name === 'usage'),
    );
    expect([usage.integration_types, usage.contexts, usage.default_member_permissions]).toEqual([
      [0, 1],
      [0, 1, 2],
      PermissionFlagsBits.ManageMessages.toString(),
    ]);
    // A plain member of a server that did not add the bot does not see it there (Discord hides it).
    const place = world.discord.addAbsentPlace('server');
    await expect(
      world.discord.userRunsCommand({ name: 'usage', author: 'bob', channelId: place.channelId }),
    ).rejects.toThrow('Discord hides the command there');
  });
});
