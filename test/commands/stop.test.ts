/**
 * /stop (commands/stop.ts): the run in progress stopped by whoever may.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { answeredConversation } from '../support/command-world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('/stop', () => {
  it('/stop stops the run in progress for the person who started the thread, and refuses others', async () => {
    world = await startBotWorld({ moderatorRoleIds: ['100000000000000099'] });
    const { discord, model } = world;
    const thread = await answeredConversation(world);
    model.enqueue({ hang: true });
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'think hard' });
    await discord.waitFor(() => model.requests.length === 2);

    const refused = await discord.userRunsCommand({ name: 'stop', author: 'bob', channelId: thread.id });
    expect((await refused.waitForReply()).content).toMatch(
      /Only the person who started this conversation, or a moderator/,
    );
    const stopped = await discord.userRunsCommand({ name: 'stop', author: 'ada', channelId: thread.id });
    expect(await stopped.waitForReply()).toMatchObject({ ephemeral: true, content: 'Stopped.' });
    expect((await waitForBotPosts(world, thread.id, 2))[1]!.content).toBe('Stopped before an answer was reached.');
  });
});
