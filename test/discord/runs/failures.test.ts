import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { apiError, finalAnswer, toolCalls } from '../../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

const mention = () => mentionOf(world);
const botPosts = (channelId: string, count: number) => waitForBotPosts(world, channelId, count);
const startConversation = async (content = 'hello') => {
  await world.discord.userSays({
    channelId: world.discord.channels.general,
    author: 'ada',
    content: `${mention()} ${content}`,
    mentions: [world.discord.botUser.id],
  });
  return world.discord.waitFor(() => world.discord.threads()[0]);
};

describe('failures reach people', () => {
  it('answers in the channel, as a reply, when it may not create threads', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const { ViewChannel, SendMessages, ReadMessageHistory, SendMessagesInThreads } = PermissionFlagsBits;
    discord.setBotPermissions(ViewChannel | SendMessages | ReadMessageHistory | SendMessagesInThreads);
    model.enqueue(finalAnswer('Here, then.'));
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} hi`,
      mentions: [discord.botUser.id],
    });

    const [answer] = await botPosts(discord.channels.general, 1);
    expect(answer!.content).toBe('Here, then.');
    expect(answer!.message_reference?.message_id).toBe(asked.id);
    expect(discord.threads()).toEqual([]);
  });

  it('survives losing the permission to post, and answers again once it is back', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue({ ...finalAnswer('Cannot be posted.'), delayMs: 300 }, finalAnswer('Posted again.'));
    const thread = await startConversation();
    discord.setBotPermissions(PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory);
    await discord.waitFor(
      () =>
        discord.requests.some(
          (request) =>
            request.method === 'POST' && request.path === `/channels/${thread.id}/messages` && request.status === 403,
        ),
      { what: 'the answer refused' },
    );
    await world.bot.queues.idle();
    expect(discord.botMessages(thread.id)).toEqual([]);
    // The run is on record, its answer given up on rather than retried forever.
    expect(world.store.runs.recent(null, 1)[0]).toMatchObject({ status: 'answered', delivered_at: expect.any(Number) });
    discord.takeProblems();

    discord.setBotPermissions(PermissionFlagsBits.Administrator);
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'hello again' });
    expect((await botPosts(thread.id, 1))[0]!.content).toBe('Posted again.');
  });

  it('shrinks the memory window and tries once more when the context is too long', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue(finalAnswer('First.'));
    const thread = await startConversation('a long story');
    await botPosts(thread.id, 1);
    model.enqueue(apiError(400, 'maximum context length exceeded', { code: 'context_length_exceeded' }), (request) => {
      expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: and then?' });
      return finalAnswer('Then this.');
    });

    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'and then?' });

    expect((await botPosts(thread.id, 2))[1]!.content).toBe('Then this.');
    const runs = world.store.runs.recent(null, 5).map((run) => [run.status, run.error_code]);
    expect(runs.slice(0, 2)).toEqual([
      ['answered', null],
      ['failed', 'model-context-too-long'],
    ]);
  });

  it('keeps the tool calls already made when it retries a context that was too long', async () => {
    world = await startBotWorld();
    const { model } = world;
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '6*7' }, id: 'call_kept' }),
      apiError(400, 'maximum context length exceeded', { code: 'context_length_exceeded' }),
      (request) => {
        expect(request.messages.slice(-3).map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
        expect(request.messages.at(-1)).toMatchObject({ tool_call_id: 'call_kept', content: '42' });
        return finalAnswer('42', ['calculator']);
      },
    );
    const thread = await startConversation('6*7?');

    const posts = await botPosts(thread.id, 2);
    expect(posts.map((post) => post.content)).toEqual([
      '🔧 **calculator** `{"expression":"6*7"}` → `42`',
      '42\n-# 🔧 calculator',
    ]);
  });

  it('during a long rate limit, tells each waiting conversation once, then answers it', async () => {
    world = await startBotWorld({}, {}, { maxRetryWaitSeconds: 1 });
    const { discord, model } = world;
    // The wait is over the client's limit (so it is reported, not slept), and short for a test.
    model.enqueue(
      apiError(429, 'Rate limit reached', { headers: { 'retry-after': '2' } }),
      finalAnswer('Now I can answer.'),
      finalAnswer('And the second one.'),
    );
    const first = await startConversation('one');
    expect((await botPosts(first.id, 1))[0]!.content).toBe(
      'The model is rate-limited right now. Please try again in 2 seconds.',
    );

    await discord.userSays({
      channelId: discord.channels.random,
      author: 'bob',
      content: `${mention()} two`,
      mentions: [discord.botUser.id],
    });
    const second = await discord.waitFor(() => discord.threads()[1]);
    await discord.userSays({ channelId: second.id, author: 'bob', content: 'two, again' });

    const posts = await discord.waitFor(
      () => {
        const sent = discord.botMessages(second.id);
        return sent.length >= 3 && sent;
      },
      { timeoutMs: 6000, what: 'the notice and the answers' },
    );
    // Two messages waited; the conversation was told once, of the wait left when its run reached the
    // gate (2 seconds here, 1 on a machine that stalled for a second after the 429).
    const [notice, ...answers] = posts.map((post) => post.content);
    expect(notice).toMatch(
      /^The model is rate-limited right now\. I will answer here in about (2 seconds|1 second)\.$/,
    );
    expect(answers).toEqual(['Now I can answer.', 'And the second one.']);
  }, 15_000);

  it("posts the answer without the reply link when the user's message was deleted meanwhile", async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue(finalAnswer('First.'), { ...finalAnswer('Answer to a deleted question.'), delayMs: 300 });
    const thread = await startConversation();
    await botPosts(thread.id, 1);
    const asked = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'question' });
    await discord.waitFor(() => model.requests.length === 2);
    await discord.userDeletes(thread.id, asked.id);

    const answer = (await botPosts(thread.id, 2))[1]!;
    expect(answer.content).toBe('Answer to a deleted question.');
    expect(answer.message_reference).toBeUndefined();
  });

  it('keeps a run going through a gateway drop and resume', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue({ ...finalAnswer('Survived the drop.'), delayMs: 800 }, finalAnswer('And still listening.'));
    const thread = await startConversation();
    await discord.waitFor(() => model.requests.length === 1);
    discord.dropGateway();

    expect((await botPosts(thread.id, 1))[0]!.content).toBe('Survived the drop.');
    await discord.waitFor(() => discord.gatewayPayloads.some((payload) => payload.op === 6), { what: 'a RESUME' });
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'still there?' });
    expect((await botPosts(thread.id, 2))[1]!.content).toBe('And still listening.');
  });
});

describe('shutdown', () => {
  it('stops taking messages, aborts a run past the grace period without posting, and takes it up at the next start', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue({ hang: true });
    const thread = await startConversation('slow question');
    await discord.waitFor(() => model.requests.length === 1);

    model.enqueue(
      (request) => {
        // The interrupted run is taken up first: it ends on the question it was answering.
        expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: slow question' });
        return finalAnswer('Answered after the restart.');
      },
      (request) => {
        expect(request.messages.slice(-2).map((message) => message.content)).toEqual([
          'Answered after the restart.',
          'Ada: sent while down',
        ]);
        return finalAnswer('And what was sent while down.');
      },
    );
    await world.restart({
      graceMs: 100,
      whileDown: async () => {
        await discord.userSays({ channelId: thread.id, author: 'ada', content: 'sent while down' });
      },
    });

    expect((await botPosts(thread.id, 2)).map((post) => post.content)).toEqual([
      'Answered after the restart.',
      'And what was sent while down.',
    ]);
    await world.bot.queues.idle();
    const runs = world.store.runs.recent(null, 5).reverse();
    expect(runs.map((run) => [run.status, run.error])).toEqual([
      ['interrupted', 'the bot shut down before the run ended'],
      ['answered', null],
      ['answered', null],
    ]);
    expect(runs[1]!.resumed_from).toBe(runs[0]!.id);
  });
});

describe('threads that were archived meanwhile', () => {
  it('reopens its own archived thread before taking up the run there', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue({ hang: true });
    const thread = await startConversation('a question before the night');
    await discord.waitFor(() => model.requests.length === 1);
    model.enqueue(finalAnswer('Good morning: here is the answer.'));

    await world.restart({
      graceMs: 50,
      whileDown: async () => {
        // Discord archives an inactive thread by itself.
        const response = await fetch(`${discord.apiUrl}/v10/channels/${thread.id}`, {
          method: 'PATCH',
          headers: {
            authorization: `Bot ${discord.token}`,
            'content-type': 'application/json',
            'user-agent': 'DiscordBot (test, 1)',
          },
          body: JSON.stringify({ archived: true }),
        });
        expect(response.status).toBe(200);
      },
    });

    expect((await botPosts(thread.id, 1))[0]!.content).toBe('Good morning: here is the answer.');
    const reopen = discord.requests.find(
      (request) =>
        request.method === 'PATCH' &&
        request.path === `/channels/${thread.id}` &&
        (request.body as { archived?: boolean }).archived === false,
    );
    expect(reopen).toBeDefined();
  });
});
