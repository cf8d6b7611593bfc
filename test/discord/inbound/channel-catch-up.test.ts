import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { openStore } from '../../../db/store.ts';
import { defaultBotPermissions } from '../../support/fake-discord.ts';
import { finalAnswer } from '../../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

/** Waits until the bot has handled a message of the channel (its cursor is at or past it). */
const seen = (channelId: string, messageId: string) =>
  world.discord.waitFor(
    () => {
      const cursor = world.store.channelCursors.recent(0, 10).find((row) => row.channel_id === channelId);
      return cursor !== undefined && BigInt(cursor.last_seen_message_id) >= BigInt(messageId);
    },
    { what: `the cursor of ${channelId} at ${messageId}` },
  );

/** Ada mentions the bot in a channel; returns the message's id. */
const adaMentions = async (channelId: string, text: string) =>
  (
    await world.discord.userSays({
      channelId,
      author: 'ada',
      content: `${mentionOf(world)} ${text}`,
      mentions: [world.discord.botUser.id],
    })
  ).id;

describe('mentions in a channel while the bot was stopped', () => {
  it('answers them after the restart, in a thread, exactly once', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const { general } = discord.channels;
    const before = await discord.userSays({ channelId: general, author: 'ada', content: 'just chatting' });
    await seen(general, before.id);

    model.enqueue(finalAnswer('Sorry for the wait: 4.'));
    let missed = '';
    await world.restart({
      whileDown: async () => {
        await discord.userSays({ channelId: general, author: 'bob', content: 'anyone there?' });
        missed = await adaMentions(general, 'what is 2+2?');
      },
    });

    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === missed), {
      what: 'a thread from the missed mention',
    });
    expect((await waitForBotPosts(world, thread.id, 1))[0]!.content).toBe('Sorry for the wait: 4.');
    expect(model.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: what is 2+2?' });

    // Caught up once: a second restart (catch-up is awaited before startBot returns) finds nothing new.
    await world.restart();
    await world.bot.queues.idle();
    expect(model.requests).toHaveLength(1);
    expect(discord.threads().map((candidate) => candidate.id)).toEqual([missed]);
    expect(discord.botMessages(thread.id)).toHaveLength(1);
  });

  it('reads back a channel made while it ran, where nothing was said before it stopped', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const news = await discord.createChannel('news');
    // Where it starts watching the channel: its own id, as it has no message yet.
    await seen(news, news);

    model.enqueue(finalAnswer('Caught it.'));
    let missed = '';
    await world.restart({ whileDown: async () => void (missed = await adaMentions(news, 'anything new?')) });

    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === missed), {
      what: 'a thread from the mention in the new channel',
    });
    expect((await waitForBotPosts(world, thread.id, 1))[0]!.content).toBe('Caught it.');
    expect(model.requests).toHaveLength(1);
  });

  it('reads back only the channels where something was sent past their cursor', async () => {
    world = await startBotWorld();
    const { discord } = world;
    const { general, random } = discord.channels;
    for (const channelId of [general, random])
      await seen(channelId, (await discord.userSays({ channelId, author: 'ada', content: 'hello' })).id);
    const empty = await discord.createChannel('empty');
    await seen(empty, empty);
    let before = 0;
    await world.restart({
      whileDown: async () => {
        before = discord.requests.length;
        await discord.userSays({ channelId: general, author: 'bob', content: 'anyone?' });
      },
    });

    // Caught up before startBot returns: one read, of the one channel with something new.
    const reads = discord.requests
      .slice(before)
      .filter((request) => request.method === 'GET' && /^\/channels\/\d+\/messages$/.test(request.path))
      .map((request) => request.path);
    expect(reads).toEqual([`/channels/${general}/messages`]);
  });

  it('does not watch a channel it may not read back (each start would cost a refused request)', async () => {
    world = await startBotWorld();
    const { discord } = world;
    discord.setBotPermissions(defaultBotPermissions & ~PermissionFlagsBits.ReadMessageHistory);
    const hidden = await discord.createChannel('staff');
    // Its listeners run as discord.js caches the channel.
    await discord.waitFor(() => world.bot.client.channels.cache.has(hidden), { what: 'the channel known to the bot' });
    expect(world.store.channelCursors.recent(0, 10).map((row) => row.channel_id)).not.toContain(hidden);
  });

  it('makes the thread a crash kept from being made (the mention stored, no thread yet), and answers there', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const { general } = discord.channels;
    model.enqueue(finalAnswer('Here now: 4.'));
    let asked = '';
    await world.restart({
      // As the process left it when killed between storing the mention and starting its thread.
      whileDown: async () => {
        asked = await adaMentions(general, 'what is 2+2?');
        const store = openStore(world.databasePath);
        const conversation = store.conversations.ensure({
          key: `discord:${asked}`,
          title: 'what is 2+2?',
          guildId: discord.guildId,
          channelId: general,
          threadId: asked,
          startedById: discord.users.ada,
          startedByName: 'Ada',
        });
        store.messages.insert({
          conversationId: conversation.id,
          runId: null,
          role: 'user',
          authorId: discord.users.ada,
          authorName: 'Ada',
          content: 'what is 2+2?',
          toolCalls: null,
          toolCallId: null,
          groupId: null,
          answersId: null,
          discordMessageId: asked,
          tokenCount: 8,
        });
        store.close();
      },
    });

    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked), {
      what: 'the thread made from the stored mention',
    });
    expect((await waitForBotPosts(world, thread.id, 1))[0]!.content).toBe('Here now: 4.');
    expect(model.requests).toHaveLength(1);
    expect(discord.botMessages(general)).toEqual([]);
  });

  it('answers a missed mention in the thread its message already has (a restore forgot the bot made it)', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const { general } = discord.channels;
    model.enqueue(finalAnswer('Answered where it was asked: 4.'));
    let asked = '';
    await world.restart({
      whileDown: async () => {
        asked = await adaMentions(general, 'what is 2+2?');
        // The thread is there already: the bot made it before the database it runs on was restored
        // from a backup older than it (or a member made it meanwhile).
        await discord.createThread(general, 'what is 2+2?', discord.users.bob, { fromMessageId: asked });
      },
    });

    const posts = await waitForBotPosts(world, asked, 1);
    expect(posts[0]!.content).toBe('Answered where it was asked: 4.');
    expect(discord.botMessages(general)).toEqual([]);
    expect(discord.threads().map((thread) => thread.id)).toEqual([asked]);
    // The conversation keeps its thread: a follow-up there is answered there, without a mention.
    model.enqueue(finalAnswer('And 6.'));
    await discord.userSays({ channelId: asked, author: 'ada', content: 'and 3+3?' });
    expect((await waitForBotPosts(world, asked, 2))[1]!.content).toBe('And 6.');
    expect(discord.botMessages(general)).toEqual([]);
  });
});
