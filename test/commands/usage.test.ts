/**
 * /usage (commands/usage.ts): tokens and runs per day, busiest threads and people, for
 * moderators (MODERATOR_ROLE_IDS checked when the command runs).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../support/bot-harness.ts';
import { answeredConversation } from '../support/command-world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('/usage', () => {
  it('counts holders of a MODERATOR_ROLE_IDS role as moderators, checked when the command runs', async () => {
    world = await startBotWorld({ moderatorRoleIds: ['100000000000000021'] });
    const { discord } = world;
    const before = await discord.userRunsCommand({ name: 'usage', author: 'bob', channelId: discord.channels.general });
    expect((await before.waitForReply()).content).toBe('This command is for moderators.');
    // The bot has no member events (no GuildMembers intent): the interaction's own member data counts.
    await discord.giveRole(discord.users.bob, '100000000000000021');
    const after = await discord.userRunsCommand({ name: 'usage', author: 'bob', channelId: discord.channels.general });
    expect((await after.waitForReply()).content).toMatch(/No runs in this server|Last 7 days/);
  });

  it('/usage shows tokens and runs per day, busiest threads and people', async () => {
    world = await startBotWorld();
    await answeredConversation(world, 'hello', 'Hi.');
    const interaction = await world.discord.userRunsCommand({
      name: 'usage',
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    const reply = await interaction.waitForReply();
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toMatch(
      /\*\*Last 7 days\*\*[\s\S]*- \d{4}-\d{2}-\d{2}: 120 tokens, 1 run\n[\s\S]*\*\*Busiest threads\*\*\n- hello: 120 tokens, 1 run\n[\s\S]*\*\*Busiest people\*\*\n- Ada: 120 tokens, 1 run$/,
    );
  });

  it("keeps a question's Markdown characters in a thread's name, escaped, not taken out", async () => {
    world = await startBotWorld();
    await answeredConversation(world, 'what is 2+3*4? snake_case', 'Fourteen.');
    const interaction = await world.discord.userRunsCommand({
      name: 'usage',
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    const reply = await interaction.waitForReply();
    expect(reply.content).toContain('- what is 2+3\\*4? snake\\_case: ');
  });
});
