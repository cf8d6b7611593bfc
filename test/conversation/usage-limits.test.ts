/**
 * The limits on use (src/conversation/usage-limits.ts), end to end: past a limit, the person is
 * told once and no model is called.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { answeredConversation } from '../support/command-world.ts';
import { finalAnswer } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('limits on use', () => {
  it("past the server's daily token budget, tells the person once and calls no model", async () => {
    world = await startBotWorld({ dailyTokenBudget: 100 });
    const { discord, model } = world;
    const thread = await answeredConversation(world, 'spend it all'); // 120 tokens: over the budget
    const more = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'more?' });
    const still = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'still?' });
    await world.handled('message', more.id, still.id);
    const notice = discord.botMessages(thread.id)[1]!;

    expect(notice.content).toMatch(/^This server has used its 100 tokens for today\. I will answer again <t:\d+:R>/);
    expect(discord.botMessages(thread.id)).toHaveLength(2);
    expect(model.requests).toHaveLength(1);
  });

  it('past TOTAL_DAILY_TOKENS, the ceiling over every server and the DMs together, refuses in any server', async () => {
    world = await startBotWorld({ totalDailyTokens: 200 });
    const { discord, model } = world;
    // Another server the bot was added to spent 150 tokens today (by the trigger that counts every run's).
    world.store.db
      .prepare('INSERT INTO guild_usage_days (guild_id, day, tokens) VALUES (?, ?, 150)')
      .run('900000000000000009', Math.floor(Date.now() / 86_400_000));
    const thread = await answeredConversation(world, 'spend the rest'); // 120 more: 270 in all
    const more = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'more?' });
    await world.handled('message', more.id);

    expect(discord.botMessages(thread.id)[1]!.content).toMatch(
      /^I have used all 200 tokens the operator gives me for today, in every server together\. I will answer again <t:\d+:R>/,
    );
    expect(model.requests).toHaveLength(1);
  });

  it('past the per-person rate, replies once per window and calls no model', async () => {
    world = await startBotWorld({ userMessagesPerMinute: 2 });
    const { discord, model } = world;
    const thread = await answeredConversation(world, 'one');
    model.enqueue(finalAnswer('Two.'));
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'two' });
    await waitForBotPosts(world, thread.id, 2);
    const three = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'three' });
    const four = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'four' });
    await world.handled('message', three.id, four.id);
    const notice = discord.botMessages(thread.id)[2]!;

    expect(notice.content).toMatch(/^You have sent 2 messages in the last minute\. I will answer again <t:\d+:R>/);
    expect(discord.botMessages(thread.id)).toHaveLength(3);
    expect(model.requests).toHaveLength(2);
  });
});
