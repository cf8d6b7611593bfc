import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../db/store.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import { remindMe } from '../../tools/remind-me.ts';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../support/scripted-model.ts';
import { tempStore } from '../support/temp-store.ts';

describe('remind_me', () => {
  let store: Store;
  beforeEach(() => {
    ({ store } = tempStore());
  });
  afterEach(() => store.close());

  const now = Date.parse('2026-11-22T12:00:00Z');
  const context = { conversationId: 'discord:t', guildId: 'g', channelId: 't', requester: { id: 'u1', displayName: 'Ada', isModerator: false }, logger: silentLogger, signal: new AbortController().signal };

  it('stores a reminder for the person who asked, in this channel, and refuses what cannot be', async () => {
    const tool = fromZodTool(remindMe(store.reminders, () => now));
    await expect(tool.execute({ text: 'stretch', in_minutes: 30, at: null }, context)).resolves.toBe('Reminder set for 2026-11-22 12:30 UTC.');
    expect(store.reminders.due(now + 31 * 60_000)).toMatchObject([{ user_id: 'u1', channel_id: 't', text: 'stretch', due_at: now + 30 * 60_000 }]);
    await expect(tool.execute({ text: 'x', in_minutes: 5, at: '2026-11-23T09:00:00+01:00' }, context)).rejects.toThrow('give exactly one of in_minutes or at');
    await expect(tool.execute({ text: 'x', in_minutes: null, at: '2026-11-22T11:00:00Z' }, context)).rejects.toThrow('already passed');
    expect(tool.validate({ text: 'x', in_minutes: null, at: 'tomorrow' }).ok).toBe(false);
  });
});

describe('reminders in Discord', () => {
  let world: BotWorld;
  afterEach(async () => {
    await world?.close();
  });

  it('posts a reminder when due, pinging only the person who asked, once', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, reminderIntervalMs: 50 });
    const { discord, model } = world;
    model.enqueue(toolCalls({ name: 'remind_me', arguments: { text: 'call <@200000000000000002> and @everyone', in_minutes: 0.005, at: null } }), finalAnswer('I will remind you.', ['remind_me']));
    await discord.userSays({ channelId: discord.channels.general, author: 'ada', content: `${mentionOf(world)} remind me`, mentions: [discord.botUser.id] });
    const thread = await discord.waitFor(() => discord.threads()[0]);

    const posts = await waitForBotPosts(world, thread.id, 3);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Due in 300 ms: on a busy machine it may come before the answer; found by its text, not its place.
    const reminder = posts.find((post) => post.content.includes('reminder:'))!;
    expect(reminder.content).toBe(`<@${discord.users.ada}> reminder: call <@200000000000000002> and @everyone`);
    expect(reminder.mentions.map((user) => user.id)).toEqual([discord.users.ada]);
    expect(reminder.mention_everyone).toBe(false);
    expect(discord.botMessages(thread.id)).toHaveLength(3);
  });

  it('posts one that fell due while the bot was down, late and saying so, and never twice', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, reminderIntervalMs: 50 });
    const { discord } = world;
    const channelId = discord.channels.general;
    await world.restart({
      whileDown: async () => {
        const offline = openStore(world.databasePath);
        offline.reminders.add({ guildId: discord.guildId, channelId, userId: discord.users.bob, text: 'water the plants', dueAt: Date.now() - 60_000 });
        offline.close();
      },
    });
    const [posted] = await waitForBotPosts(world, channelId, 1);
    expect(posted!.content).toMatch(new RegExp(`^<@${discord.users.bob}> reminder: water the plants \\(late: it was due <t:\\d+:f>, while I was offline\\)$`));

    await world.restart();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(discord.botMessages(channelId)).toHaveLength(1);
  });
});
