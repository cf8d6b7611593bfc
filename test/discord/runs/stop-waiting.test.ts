import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

describe('/stop of a run still waiting for its turn with the model', () => {
  it('stops it before any model call, and says so', async () => {
    world = await startBotWorld({ maxConcurrentRuns: 1 });
    const { discord, model } = world;
    const ask = async (content: string) => {
      const asked = await discord.userSays({
        channelId: discord.channels.general,
        author: 'ada',
        content: `${mentionOf(world)} ${content}`,
        mentions: [discord.botUser.id],
      });
      return discord.waitFor(() => discord.threads().find((thread) => thread.id === asked.id), {
        what: `the thread of "${content}"`,
      });
    };
    model.enqueue({ hang: true });
    const busy = await ask('a long question');
    await discord.waitFor(() => model.requests.length === 1, { what: 'the first run calling the model' });
    const waiting = await ask('a short one');
    // Its typing indicator shows the run has begun, and the only turn is taken.
    await discord.waitFor(
      () =>
        discord.requests.some(
          (request) => request.method === 'POST' && request.path === `/channels/${waiting.id}/typing`,
        ),
      { what: 'the second run waiting' },
    );

    const stopped = await discord.userRunsCommand({ name: 'stop', author: 'ada', channelId: waiting.id });
    expect((await stopped.waitForReply()).content).toBe(
      'Stopped before it began: it was still waiting for its turn with the model.',
    );
    expect((await waitForBotPosts(world, waiting.id, 1))[0]!.content).toBe('Stopped before an answer was reached.');
    expect(model.requests).toHaveLength(1);

    const first = await discord.userRunsCommand({ name: 'stop', author: 'ada', channelId: busy.id });
    expect((await first.waitForReply()).content).toBe('Stopped.');
    await waitForBotPosts(world, busy.id, 1);
  });
});
