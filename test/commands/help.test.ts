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
});
