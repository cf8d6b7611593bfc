/**
 * /reset (commands/reset.ts): the thread starts afresh.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../support/bot-harness.ts';
import { answeredConversation } from '../support/command-world.ts';
import { finalAnswer } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('/reset', () => {
  it('/reset makes the thread start afresh, keeping the old messages in the database', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    const thread = await answeredConversation(world, 'my secret is 42', 'Noted.');
    const interaction = await discord.userRunsCommand({ name: 'reset', author: 'ada', channelId: thread.id });
    expect((await interaction.waitForReply()).content).toContain('reset this conversation');

    model.enqueue((request) => {
      expect(request.messages.slice(1).map((message) => message.content)).toEqual(['Ada: what is my secret?']);
      return finalAnswer('I do not know.');
    });
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'what is my secret?' });
    await discord.waitFor(() => discord.botMessages(thread.id).some((post) => post.content === 'I do not know.'));
    expect(store.messages.count(store.conversations.byKey(`discord:${thread.id}`)!.id)).toBe(4);
  });
});
