import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../../support/bot-harness.ts';
import { apiError, finalAnswer, toolCalls } from '../../support/fake-model.ts';
import { waitUntil } from '../../support/wait-until.ts';

let world: BotWorld;
beforeEach(async () => {
  world = await startBotWorld();
});
afterEach(async () => {
  await world.close();
});

const mention = () => `<@${world.discord.botUser.id}>`;

/** Waits until the bot has posted `count` messages in `channelId`. */
const botPosts = (channelId: string, count: number) =>
  world.discord.waitFor(
    () => {
      const posts = world.discord.botMessages(channelId);
      return posts.length >= count && posts;
    },
    { what: `${count} bot messages in ${channelId}` },
  );

describe('conversations in threads', () => {
  it('opens a thread from a mention, posts the tool call, then answers as a reply', async () => {
    const { discord, model } = world;
    model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '2+3*4' } }), (request) => {
      expect(request.messages.at(-2)?.role).toBe('assistant');
      expect(request.messages.at(-1)).toMatchObject({ role: 'tool', content: '14' });
      return finalAnswer('2 + 3 × 4 = **14**', ['calculator']);
    });

    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} what is 2+3*4?`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0], { what: 'a thread' });
    const [toolPost, answer] = await botPosts(thread.id, 2);

    expect(thread).toMatchObject({ name: 'what is 2+3*4?', parent_id: discord.channels.general, id: asked.id });
    expect(toolPost!.content).toBe('🔧 **calculator** `{"expression":"2+3*4"}` → `14`');
    expect(toolPost!.flags! & 4).toBe(4); // link previews suppressed
    expect(answer!.content).toBe('2 + 3 × 4 = **14**\n-# 🔧 calculator');
    // The question is the thread's first message, in the parent channel: no reply across channels.
    expect(answer!.message_reference).toBeUndefined();
    expect(thread.id).toBe(asked.id);
    // The model saw who asked, without the bot's mention.
    expect(model.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: what is 2+3*4?' });
    expect(model.requests[0]!.messages[0]!.content).toContain('in the thread "what is 2+3*4?" of channel #general');
    // A thread, one typing indicator, one tool post, one answer: the model turns plus two.
    const posts = discord.requests.filter((request) => request.method === 'POST');
    expect(posts.map((request) => request.path.replace(/\d{17,20}/g, ':id'))).toEqual([
      '/channels/:id/messages/:id/threads',
      '/channels/:id/typing',
      '/channels/:id/messages',
      '/channels/:id/messages',
    ]);
    for (const request of posts.filter((post) => post.path.endsWith('/messages'))) {
      expect(request.body).toMatchObject({
        allowed_mentions: { parse: [], replied_user: false },
        enforce_nonce: true,
        nonce: expect.any(String),
      });
    }
  });

  it('calls the model while its thread is still being made, and posts in the thread once it exists', async () => {
    const { discord, model } = world;
    let threadAnswered!: () => void;
    // Discord makes the thread but its answer is held: a burst of mentions queues thread creations.
    discord.holdNext({
      method: 'POST',
      path: /\/threads$/,
      ms: 0,
      until: new Promise<void>((resolve) => (threadAnswered = resolve)),
    });
    model.enqueue(finalAnswer('Hello, Ada.'));
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} hello`,
      mentions: [discord.botUser.id],
    });
    try {
      await waitUntil(() => model.requests.length === 1, 'the model called');
      // The model has answered, the thread is not known to the bot yet: nothing can have been posted.
      expect(model.requests[0]!.messages[0]!.content).toContain('in the thread "hello" of channel #general');
      const toChannels = discord.requests.filter(
        (request) => request.method !== 'GET' && request.path.startsWith('/channels/'),
      );
      expect(toChannels.map((request) => request.path)).toEqual([
        `/channels/${discord.channels.general}/messages/${asked.id}/threads`,
      ]);
    } finally {
      threadAnswered();
    }
    const [answer] = await botPosts(asked.id, 1);
    expect(answer!.content).toBe('Hello, Ada.');
    expect(answer!.message_reference).toBeUndefined();
    // The answer was ready before the thread: no typing indicator after it, only the answer.
    const posts = discord.requests.filter((request) => request.method === 'POST');
    expect(posts.map((request) => request.path.replace(/\d{17,20}/g, ':id'))).toEqual([
      '/channels/:id/messages/:id/threads',
      '/channels/:id/messages',
    ]);
  });

  it('answers every message in the thread without a mention, with the earlier exchange in memory', async () => {
    const { discord, model } = world;
    model.enqueue(finalAnswer('Nice to meet you, Ada.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} I am Ada`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await botPosts(thread.id, 1);

    model.enqueue((request) => {
      expect(request.messages.slice(1).map((message) => message.content)).toEqual([
        'Ada: I am Ada',
        'Nice to meet you, Ada.',
        'Ada: who am I?',
      ]);
      return finalAnswer('You are Ada.');
    });
    const asked = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'who am I?' });

    const answer = (await botPosts(thread.id, 2))[1]!;
    expect(answer.content).toBe('You are Ada.');
    expect(answer.message_reference?.message_id).toBe(asked.id);
  });

  it('keeps threads apart: another thread does not see the first one', async () => {
    const { discord, model } = world;
    model.enqueue(finalAnswer('Noted: the password is swordfish.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} the password is swordfish`,
      mentions: [discord.botUser.id],
    });
    const first = await discord.waitFor(() => discord.threads()[0]);
    await botPosts(first.id, 1);

    model.enqueue((request) => {
      expect(JSON.stringify(request.messages)).not.toContain('swordfish');
      return finalAnswer('I do not know.');
    });
    await discord.userSays({
      channelId: discord.channels.random,
      author: 'bob',
      content: `${mention()} what is the password?`,
      mentions: [discord.botUser.id],
    });
    const second = await discord.waitFor(() => discord.threads()[1]);

    expect((await botPosts(second.id, 1))[0]!.content).toBe('I do not know.');
  });

  it('batches a burst: messages sent during a run are answered together by the next, none lost', async () => {
    const { discord, model } = world;
    model.enqueue(
      // The first run's model call takes a while: the burst arrives meanwhile.
      { ...finalAnswer('First answer.'), delayMs: 400 },
      (request) => {
        expect(request.messages.slice(-4).map((message) => message.content)).toEqual([
          'Bob: one',
          'Ada: two',
          'Bob: three',
          'Ada: four',
        ]);
        return finalAnswer('All four, answered.');
      },
    );
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} start`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    for (const [author, content] of [
      ['bob', 'one'],
      ['ada', 'two'],
      ['bob', 'three'],
      ['ada', 'four'],
    ] as const) {
      await discord.userSays({ channelId: thread.id, author, content });
    }

    const posts = await botPosts(thread.id, 2);
    expect(posts.map((post) => post.content)).toEqual(['First answer.', 'All four, answered.']);
    const lastAsked = discord.messages(thread.id).find((message) => message.content === 'four');
    expect(posts[1]!.message_reference?.message_id).toBe(lastAsked!.id);
    expect(model.requests).toHaveLength(2);
    expect(world.store.messages.count(world.store.conversations.byKey(`discord:${thread.id}`)!.id)).toBe(7);
  });

  it('remembers the thread after the bot restarts', async () => {
    const { discord, model } = world;
    model.enqueue(finalAnswer('Your favourite colour is green, noted.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} my favourite colour is green`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await botPosts(thread.id, 1);

    await world.restart();
    model.enqueue((request) => {
      expect(request.messages.slice(1).map((message) => message.content)).toEqual([
        'Ada: my favourite colour is green',
        'Your favourite colour is green, noted.',
        'Ada: what is my favourite colour?',
      ]);
      return finalAnswer('Green.');
    });
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'what is my favourite colour?' });

    expect((await botPosts(thread.id, 2))[1]!.content).toBe('Green.');
  });

  it('does not let a stuck run block its thread: the time limit ends it, and the next message is answered', async () => {
    await world.close();
    world = await startBotWorld({}, { runTimeoutMs: 300 });
    const { discord, model } = world;
    model.enqueue({ hang: true }, finalAnswer('Back to normal.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} hello`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    expect((await botPosts(thread.id, 1))[0]!.content).toMatch(/^I ran out of time/);

    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'again?' });
    expect((await botPosts(thread.id, 2))[1]!.content).toBe('Back to normal.');
  });

  it('tells the user when the model fails, in the thread', async () => {
    const { discord, model } = world;
    model.enqueue(apiError(401, 'Incorrect API key provided'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} hello`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);

    expect((await botPosts(thread.id, 1))[0]!.content).toMatch(/refused the bot's credentials/);
  });
});
