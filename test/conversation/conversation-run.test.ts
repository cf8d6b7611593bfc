/**
 * A run's preparation (src/conversation/conversation-run.ts), end to end: the tools offered depend
 * on who asked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { builtInTools } from '../../tools/index.ts';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { purgeCache } from '../support/command-world.ts';
import { finalAnswer } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('moderator-only tools and the model', () => {
  it('offers a moderator-only tool to the model only in runs asked for by moderators', async () => {
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([...builtInTools, purgeCache]) });
    const { discord, model } = world;
    const offered = (index: number) => model.requests[index]!.tools!.map((spec) => spec.function.name);
    model.enqueue(finalAnswer('Hi Bob.'), finalAnswer('Hi Ada.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'bob',
      content: `${mentionOf(world)} please run purge_cache`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await waitForBotPosts(world, thread.id, 1);
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'and for me?' });
    await waitForBotPosts(world, thread.id, 2);

    expect(offered(0)).not.toContain('purge_cache');
    expect(offered(1)).toContain('purge_cache');
  });
});
