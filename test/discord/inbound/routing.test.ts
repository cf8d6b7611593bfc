import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../../support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

const botPosts = (channelId: string, count: number) =>
  world.discord.waitFor(
    () => {
      const posts = world.discord.botMessages(channelId);
      return posts.length >= count && posts;
    },
    { what: `${count} bot messages` },
  );

describe('what the bot answers', () => {
  it('ignores bots, @everyone, and channels or servers outside the allow-lists', async () => {
    world = await startBotWorld({ allowedChannelIds: ['100000000000000010'] });
    const { discord } = world;
    const said = [
      await discord.userSays({
        channelId: discord.channels.general,
        author: { id: '400000000000000001', username: 'other-bot', bot: true },
        content: `<@${discord.botUser.id}> hi`,
        mentions: [discord.botUser.id],
      }),
      await discord.userSays({
        channelId: discord.channels.general,
        author: 'ada',
        content: '@everyone hello',
        mentionEveryone: true,
      }),
      await discord.userSays({
        channelId: discord.channels.random,
        author: 'ada',
        content: `<@${discord.botUser.id}> hi`,
        mentions: [discord.botUser.id],
      }),
    ];
    await world.handled('message', ...said.map((message) => message.id));

    expect(discord.threads()).toEqual([]);
    expect(world.model.requests).toHaveLength(0);
    expect(discord.channels.general).toBe('100000000000000010');
  });

  it('answers a mention of its managed role, and makes a mention in an existing thread a conversation', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue(finalAnswer('Role mention heard.'), finalAnswer('Thread adopted.'), finalAnswer('Still here.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@&${discord.roles.bot}> ping`,
      mentionRoles: [discord.roles.bot],
    });
    const first = await discord.waitFor(() => discord.threads()[0]);
    expect((await botPosts(first.id, 1))[0]!.content).toBe('Role mention heard.');

    const existing = await discord.createThread(discord.channels.random, 'planning', discord.users.bob);
    const before = await discord.userSays({
      channelId: existing.id,
      author: 'bob',
      content: 'before the bot is asked',
    });
    await world.handled('message', before.id);
    expect(model.requests).toHaveLength(1);
    await discord.userSays({
      channelId: existing.id,
      author: 'bob',
      content: `<@${discord.botUser.id}> join us`,
      mentions: [discord.botUser.id],
    });
    expect((await botPosts(existing.id, 1))[0]!.content).toBe('Thread adopted.');
    await discord.userSays({ channelId: existing.id, author: 'bob', content: 'and now without a mention' });
    expect((await botPosts(existing.id, 2))[1]!.content).toBe('Still here.');
  });

  it('edits memory when a message is edited, forgets a deleted one, and purges a deleted thread', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    model.enqueue(finalAnswer('First.'), finalAnswer('Second.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> my number is 7`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await botPosts(thread.id, 1);
    const extra = await discord.userSays({ channelId: thread.id, author: 'bob', content: 'a typo' });
    await botPosts(thread.id, 2);

    await discord.userEdits(discord.channels.general, thread.id, `<@${discord.botUser.id}> my number is 8`);
    await discord.userDeletes(thread.id, extra.id);
    const conversation = store.conversations.byKey(`discord:${thread.id}`)!;
    const memory = () => [...store.messages.iterateNewest(conversation.id, 0)].map((row) => row.content).reverse();
    await discord.waitFor(() => memory()[0] === 'my number is 8' && !memory().includes('a typo'), {
      what: 'the edit and the deletion in memory',
    });
    expect(memory()).toEqual(['my number is 8', 'First.', 'Second.']);

    await discord.deleteThread(thread.id);
    await discord.waitFor(() => store.conversations.byKey(`discord:${thread.id}`) === undefined, {
      what: 'the conversation purged',
    });
    expect(store.db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(0);
    expect(store.db.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(0);
  });

  it('reads text attachments and names the others', async () => {
    world = await startBotWorld({ attachmentMaxBytes: 1024 });
    const { discord, model } = world;
    model.enqueue((request) => {
      const asked = request.messages.at(-1)!.content!;
      expect(asked).toContain('Ada: please review\n\n[Attachment notes.txt]\n```\nline one\nline two\n```');
      expect(asked).toContain('[image photo.png: posted, but this model cannot see images, so it is not shown]');
      expect(asked).toContain('[Attachment big.log (text/plain, 2 KB): not read, larger than 1 KB.]');
      return finalAnswer('Reviewed.');
    });
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> please review`,
      mentions: [discord.botUser.id],
      attachments: [
        { filename: 'notes.txt', contentType: 'text/plain; charset=utf-8', body: 'line one\nline two' },
        { filename: 'photo.png', contentType: 'image/png', body: Buffer.from([1, 2, 3]) },
        { filename: 'big.log', contentType: 'text/plain', body: 'x'.repeat(2048) },
      ],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    expect((await botPosts(thread.id, 1))[0]!.content).toBe('Reviewed.');
  });
});

describe('what the bot posts', () => {
  it('splits a long answer, keeps code blocks whole, and pings nobody whatever the model writes', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const code = Array.from(
      { length: 150 },
      (_, index) => `console.log(${index}); // @everyone <@${discord.users.bob}>`,
    ).join('\n');
    const answer = `@everyone @here <@${discord.users.bob}> <@&${discord.roles.moderator}> look:\n\`\`\`js\n${code}\n\`\`\``;
    model.enqueue(finalAnswer(answer));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> long please`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    // Once the model has been asked, the run is queued, and idle() waits for it to end.
    await discord.waitFor(() => model.requests.length === 1);
    await world.bot.queues.idle();
    const posts = discord.botMessages(thread.id);

    expect(posts.length).toBeGreaterThan(2);
    for (const post of posts) {
      expect(post.content.length).toBeLessThanOrEqual(2000);
      expect(post.mention_everyone).toBe(false);
      expect(post.mentions).toEqual([]);
      expect(post.mention_roles).toEqual([]);
    }
    expect(posts[1]!.content.startsWith('```js\n')).toBe(true);
  });

  it('posts tool calls as names only with TOOL_POSTS=summary, and not at all with off', async () => {
    world = await startBotWorld({ toolPosts: 'summary' });
    const { discord, model } = world;
    model.enqueue(
      toolCalls(
        { name: 'calculator', arguments: { expression: '1+1' } },
        { name: 'current_time', arguments: { time_zone: null } },
      ),
      finalAnswer('Done.', ['calculator']),
    );
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> go`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    expect((await botPosts(thread.id, 2)).map((post) => post.content)).toEqual([
      '🔧 calculator, current_time',
      'Done.\n-# 🔧 calculator',
    ]);
    await world.close();

    world = await startBotWorld({ toolPosts: 'off' });
    world.model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '1+1' } }),
      finalAnswer('Done.', ['calculator']),
    );
    const asked = await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'ada',
      content: `<@${world.discord.botUser.id}> go`,
      mentions: [world.discord.botUser.id],
    });
    const quiet = await world.discord.waitFor(() => world.discord.threads()[0]);
    expect((await botPosts(quiet.id, 1)).map((post) => post.content)).toEqual(['Done.\n-# 🔧 calculator']);
    await world.handled('message', asked.id);
    expect(world.discord.botMessages(quiet.id)).toHaveLength(1);
  });

  it('runs threads side by side, but no more model calls at once than MAX_CONCURRENT_RUNS', async () => {
    for (const limit of [1, 3]) {
      world = await startBotWorld({ maxConcurrentRuns: limit });
      const { discord, model } = world;
      for (let index = 0; index < 3; index++) model.enqueue({ ...finalAnswer(`Answer ${index}.`), delayMs: 150 });
      for (const channelId of [discord.channels.general, discord.channels.random, discord.channels.general]) {
        await discord.userSays({
          channelId,
          author: 'ada',
          content: `<@${discord.botUser.id}> hi`,
          mentions: [discord.botUser.id],
        });
      }
      await discord.waitFor(
        () =>
          discord.threads().length === 3 &&
          discord.threads().every((thread) => discord.botMessages(thread.id).length === 1),
        { what: 'three answers' },
      );

      expect(model.maxConcurrent).toBe(limit);
      await world.bot.queues.idle();
      expect(world.bot.queues.activeConversations).toBe(0);
      await world.close();
    }
    world = undefined as unknown as BotWorld;
  });
});

describe('allow-lists, failures and backlogs', () => {
  it('ignores servers outside ALLOWED_GUILD_IDS', async () => {
    world = await startBotWorld({ allowedGuildIds: ['999999999999999999'] });
    const { discord } = world;
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> hi`,
      mentions: [discord.botUser.id],
    });
    await world.handled('message', asked.id);

    expect(discord.threads()).toEqual([]);
    expect(world.model.requests).toHaveLength(0);
  });

  it('still answers when a tool post fails, and records only what was posted', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '1+1' } }), finalAnswer('2'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> 1+1`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    discord.failNext({
      method: 'POST',
      path: new RegExp(`/channels/${thread.id}/messages$`),
      status: 403,
      body: { message: 'Missing Permissions', code: 50013 },
    });

    const [answer] = await botPosts(thread.id, 1);
    await world.bot.queues.idle();

    expect(answer!.content).toBe('2');
    const run = store.runs.recent(null, 1)[0]!;
    expect(JSON.parse(run.posted_message_ids)).toEqual([answer!.id]);
  });

  it('answers a backlog of more than 20 messages in order, each batch with only what came before it', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const said = Array.from({ length: 24 }, (_, index) => `m${index + 1}`);
    model.enqueue(
      { ...finalAnswer('First.'), delayMs: 500 },
      (request) => {
        const contents = request.messages.map((message) => message.content);
        expect(contents.slice(-20)).toEqual(said.slice(0, 20).map((text) => `Bob: ${text}`));
        expect(contents.join()).not.toContain('m21');
        return finalAnswer('Twenty answered.');
      },
      (request) => {
        const contents = request.messages.map((message) => message.content);
        expect(contents.slice(-5)).toEqual(['Twenty answered.', 'Bob: m21', 'Bob: m22', 'Bob: m23', 'Bob: m24']);
        return finalAnswer('The rest answered.');
      },
    );
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> start`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    for (const text of said) await discord.userSays({ channelId: thread.id, author: 'bob', content: text });

    expect((await botPosts(thread.id, 3)).map((post) => post.content)).toEqual([
      'First.',
      'Twenty answered.',
      'The rest answered.',
    ]);
  });

  it('does not run for a message deleted while it waited', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue({ ...finalAnswer('First.'), delayMs: 300 });
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> start`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    const regret = await discord.userSays({ channelId: thread.id, author: 'bob', content: 'never mind' });
    await discord.userDeletes(thread.id, regret.id);

    await world.handled('message', regret.id);
    await world.handled('deletion', regret.id);
    expect(discord.botMessages(thread.id).map((post) => post.content)).toEqual(['First.']);
    expect(model.requests).toHaveLength(1);
  });

  it('purges a deleted thread even when the client no longer holds it in its cache', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    model.enqueue(finalAnswer('Hi.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> hi`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await botPosts(thread.id, 1);
    // As after a restart, or once the sweeper dropped an archived thread.
    world.bot.client.channels.cache.delete(thread.id);
    world.bot.client.guilds.cache.get(discord.guildId)!.channels.cache.delete(thread.id);

    await discord.deleteThread(thread.id);

    await discord.waitFor(() => store.conversations.byKey(`discord:${thread.id}`) === undefined, {
      what: 'the conversation purged',
    });
  });
});

describe('deletions by moderators', () => {
  it('forgets bulk-deleted messages, and purges the conversations of a deleted channel', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    model.enqueue(finalAnswer('One.'), finalAnswer('Two.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> one`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await botPosts(thread.id, 1);
    const spam = await discord.userSays({ channelId: thread.id, author: 'bob', content: 'spam spam' });
    await botPosts(thread.id, 2);
    const conversation = store.conversations.byKey(`discord:${thread.id}`)!;

    await discord.bulkDelete(thread.id, [spam.id]);
    await discord.waitFor(() => !store.messages.hasDiscordId(spam.id), { what: 'the bulk-deleted message forgotten' });
    expect(store.messages.count(conversation.id)).toBe(3);

    await discord.deleteChannel(discord.channels.general);
    await discord.waitFor(() => store.conversations.byKey(`discord:${thread.id}`) === undefined, {
      what: 'the conversation purged',
    });
  });
});
