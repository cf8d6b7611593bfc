/**
 * /ask (commands/ask.ts): a thread started with the prompt, where the channel allows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('/ask', () => {
  it('/ask starts a thread with the prompt, and the answer comes there', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue((request) => {
      expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: what is the capital of France?' });
      return finalAnswer('Paris.');
    });
    const interaction = await discord.userRunsCommand({
      name: 'ask',
      options: { prompt: 'what is the capital of France?' },
      author: 'ada',
      channelId: discord.channels.general,
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    const reply = await interaction.waitForReply();
    expect(reply).toMatchObject({ ephemeral: true, content: `Started: <#${thread.id}>` });
    const posts = await waitForBotPosts(world, thread.id, 2);
    expect(posts.map((post) => post.content)).toEqual(['**Ada** asked: what is the capital of France?', 'Paris.']);
    expect(posts[1]!.message_reference?.message_id).toBe(posts[0]!.id);
  });

  it('/ask keeps to the channel allow-list', async () => {
    world = await startBotWorld({ allowedChannelIds: ['100000000000000011'] });
    const interaction = await world.discord.userRunsCommand({
      name: 'ask',
      options: { prompt: 'hi' },
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    expect(await interaction.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'I do not hold conversations in this channel.',
    });
    await world.handled('interaction', interaction.id);
    expect(world.discord.threads()).toEqual([]);
    expect(world.model.requests).toHaveLength(0);
  });
});
