/**
 * The "Agent steps" message menu (commands/agent-steps.ts): for moderators only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../support/bot-harness.ts';
import { answeredConversation } from '../support/command-world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('"Agent steps"', () => {
  it('"Agent steps" refuses people who are not moderators', async () => {
    world = await startBotWorld({ moderatorRoleIds: ['100000000000000099'] });
    const thread = await answeredConversation(world, 'hi', 'Hello.');
    const [answer] = world.discord.botMessages(thread.id);
    const refused = await world.discord.userRunsCommand({
      name: 'Agent steps',
      type: 'message',
      targetMessageId: answer!.id,
      author: 'bob',
      channelId: thread.id,
    });
    expect(await refused.waitForReply()).toMatchObject({ ephemeral: true, content: 'This command is for moderators.' });
  });
});
