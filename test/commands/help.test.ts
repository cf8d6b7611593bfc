/**
 * /help (commands/help.ts): the tools, told privately.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../support/bot-harness.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('/help', () => {
  it('/help answers privately with the tools', async () => {
    world = await startBotWorld();
    const interaction = await world.discord.userRunsCommand({
      name: 'help',
      author: 'bob',
      channelId: world.discord.channels.general,
    });
    const reply = await interaction.waitForReply();
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toContain('**calculator**');
    expect(reply.content).toContain('→ Apps → **Report answer**');
  });

  it('tells members no operator setting: the web search hint and MCP servers are for moderators', async () => {
    world = await startBotWorld({ moderatorRoleIds: ['100000000000000021'] });
    const help = async (author: 'ada' | 'bob') =>
      (
        await (
          await world.discord.userRunsCommand({ name: 'help', author, channelId: world.discord.channels.general })
        ).waitForReply()
      ).content;
    const member = await help('bob');
    expect(member).toContain('I cannot search the web here.');
    expect(member).not.toContain('SEARXNG_URL');
    await world.discord.giveRole(world.discord.users.bob, '100000000000000021');
    expect(await help('bob')).toContain('SEARXNG_URL');
  });
});
