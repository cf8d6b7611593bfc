/**
 * Discord faults the other suites do not cover: 429s (a route's and the global one) on posting and
 * on thread creation, 5xx answers (once, after the effect took place, and for good), locked and
 * archived threads, and gateway drops with a message sent in the gap. Each ends with the bot still
 * answering and nothing lost from the database. (Covered elsewhere: 403 on thread creation and on
 * sending, and a deleted question, in test/discord/runs/failures.test.ts and
 * test/discord/inbound/routing.test.ts.)
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BotWorld,
  type LogLine,
  mentionOf,
  recordingLogger,
  startBotWorld,
  waitForBotPosts,
} from '../support/bot-harness.ts';
import { defaultBotPermissions } from '../support/fake-discord.ts';
import { finalAnswer, toolCalls } from '../support/fake-model.ts';

let world: BotWorld;
let logs: LogLine[];
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

async function start(): Promise<BotWorld> {
  const recording = recordingLogger();
  logs = recording.lines;
  world = await startBotWorld({}, {}, {}, { logger: recording.logger });
  return world;
}

const botTexts = (channelId: string) => world.discord.botMessages(channelId).map((message) => message.content);
const messagePosts = (channelId: string) =>
  world.discord.requests.filter(
    (request) => request.method === 'POST' && request.path === `/channels/${channelId}/messages`,
  );
/** What the fake saw, for a failure's message. */
const recent = () =>
  world.discord.requests.map((request) => `${request.method} ${request.path} → ${request.status}`).join('\n');
const logged = (msg: string) =>
  world.discord.waitFor(() => logs.find((line) => line.msg === msg), { what: `the log line "${msg}"` });

async function startConversation(content = 'hello') {
  const { discord } = world;
  await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `${mentionOf(world)} ${content}`,
    mentions: [discord.botUser.id],
  });
  return discord.waitFor(() => discord.threads()[0], { what: 'the thread' });
}

/** Every user message the fake holds in `channelId` is stored in the bot's memory. */
function storedDiscordIds(): Set<string> {
  return new Set(
    world.store.db.prepare("SELECT discord_message_id FROM messages WHERE role = 'user'").pluck().all() as string[],
  );
}

/** The bot answers one more message in the thread: it kept working. */
async function stillAnswers(threadId: string): Promise<void> {
  world.model.enqueue(finalAnswer('Still here.'));
  const before = botTexts(threadId).length;
  await world.discord.userSays({ channelId: threadId, author: 'ada', content: 'still there?' });
  await world.discord.waitFor(() => botTexts(threadId).length > before && botTexts(threadId).at(-1) === 'Still here.', {
    what: 'an answer after the fault',
  });
}

describe('429 from Discord', () => {
  it('waits out a global 429 on a tool post, and posts it once', async () => {
    const { discord, model } = await start();
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }),
      finalAnswer('42', ['calculator']),
    );
    discord.rateLimitNext({
      method: 'POST',
      path: /^\/channels\/\d+\/messages$/,
      retryAfterSeconds: 0.3,
      global: true,
    });
    const thread = await startConversation('6*7?');

    await waitForBotPosts(world, thread.id, 2);
    await world.bot.queues.idle();
    expect(botTexts(thread.id)).toEqual(['🔧 **calculator** `{"expression":"6*7"}` → `42`', '42\n-# 🔧 calculator']);
    expect(
      messagePosts(thread.id).map((request) => request.status),
      recent(),
    ).toEqual([429, 200, 200]);
    expect(world.store.runs.recent(null, 1)[0]).toMatchObject({ status: 'answered', delivered_at: expect.any(Number) });
    expect(JSON.parse(world.store.runs.recent(null, 1)[0]!.posted_message_ids)).toHaveLength(2);
  });

  it("waits out a route's 429 on the answer, and posts it once", async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('After the wait.'));
    discord.rateLimitNext({ method: 'POST', path: /^\/channels\/\d+\/messages$/, retryAfterSeconds: 0.3 });
    const thread = await startConversation();

    await waitForBotPosts(world, thread.id, 1);
    await world.bot.queues.idle();
    expect(botTexts(thread.id), recent()).toEqual(['After the wait.']);
    expect(
      messagePosts(thread.id).map((request) => request.status),
      recent(),
    ).toEqual([429, 200]);
    await stillAnswers(thread.id);
  });

  it('waits out a 429 on thread creation and answers in the thread', async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('In the thread.'));
    discord.rateLimitNext({
      method: 'POST',
      path: /^\/channels\/\d+\/messages\/\d+\/threads$/,
      retryAfterSeconds: 0.3,
    });
    const thread = await startConversation();

    expect((await waitForBotPosts(world, thread.id, 1))[0]!.content).toBe('In the thread.');
    expect(discord.threads()).toHaveLength(1);
    expect(discord.botMessages(discord.channels.general)).toEqual([]);
  });
});

describe('5xx from Discord', () => {
  it('retries a 500 on the answer and posts it once', async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('After a 500.'));
    discord.failNext({ method: 'POST', path: /^\/channels\/\d+\/messages$/, status: 500 });
    const thread = await startConversation();

    await waitForBotPosts(world, thread.id, 1);
    await world.bot.queues.idle();
    expect(botTexts(thread.id)).toEqual(['After a 500.']);
    expect(
      messagePosts(thread.id).map((request) => request.status),
      recent(),
    ).toEqual([500, 200]);
  });

  it('posts once when a 502 came after Discord had posted the message (the retry carries the same nonce)', async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('Exactly once.'));
    discord.failNext({ method: 'POST', path: /^\/channels\/\d+\/messages$/, status: 502, applied: true });
    const thread = await startConversation();

    await waitForBotPosts(world, thread.id, 1);
    await world.bot.queues.idle();
    expect(botTexts(thread.id)).toEqual(['Exactly once.']);
    const [first, retry] = messagePosts(thread.id);
    expect([first!.status, retry!.status]).toEqual([502, 200]);
    expect((retry!.body as { nonce: string }).nonce).toBe((first!.body as { nonce: string }).nonce);
  });

  it('gives up on an answer Discord keeps refusing with 500, logs it, keeps it in memory, and answers the next message', async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('Lost in transit.'));
    // discord.js tries a 5xx four times (its default of three retries).
    discord.failNext({ method: 'POST', path: /^\/channels\/\d+\/messages$/, status: 500, times: 4 });
    const thread = await startConversation();

    const line = await logged('could not post the answer');
    await world.bot.queues.idle();
    expect(line.level).toBe('error');
    expect(botTexts(thread.id)).toEqual([]);
    expect(world.store.runs.recent(null, 1)[0]).toMatchObject({ status: 'answered', delivered_at: expect.any(Number) });
    const remembered = world.store.db.prepare("SELECT content FROM messages WHERE role = 'assistant'").pluck().all();
    expect(remembered).toEqual(['Lost in transit.']);
    await stillAnswers(thread.id);
  });

  it('answers in the channel when thread creation keeps failing with 500', async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('Here instead.'));
    discord.failNext({ method: 'POST', path: /^\/channels\/\d+\/messages\/\d+\/threads$/, status: 500, times: 4 });
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} hi`,
      mentions: [discord.botUser.id],
    });

    const [answer] = await waitForBotPosts(world, discord.channels.general, 1);
    expect(answer!.content).toBe('Here instead.');
    expect(discord.threads()).toEqual([]);
    expect((await logged('could not start a thread: answering in the channel')).level).toBe('warn');
  });
});

describe('locked and archived threads', () => {
  const withoutManageThreads = defaultBotPermissions & ~PermissionFlagsBits.ManageThreads;

  it('does not run the model for a thread it may not post in (locked), logs why, keeps the message, and answers once unlocked', async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('First.'));
    const thread = await startConversation();
    await waitForBotPosts(world, thread.id, 1);
    discord.setBotPermissions(withoutManageThreads);
    await discord.updateThread(thread.id, { locked: true });
    await discord.waitFor(
      () =>
        world.bot.client.channels.cache.get(thread.id)?.isThread() &&
        (world.bot.client.channels.cache.get(thread.id) as { locked?: boolean }).locked,
      { what: 'the bot sees the lock' },
    );

    // A moderator may still write in a locked thread.
    const asked = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'written while locked' });
    const line = await logged('cannot post: the thread is locked');
    await world.bot.queues.idle();
    expect(line).toMatchObject({
      level: 'warn',
      fields: { conversation: `discord:${thread.id}`, threadId: thread.id },
    });
    expect(model.requests).toHaveLength(1);
    expect(messagePosts(thread.id).filter((request) => request.status !== 200)).toEqual([]);
    expect(storedDiscordIds().has(asked.id)).toBe(true);

    await discord.updateThread(thread.id, { locked: false });
    model.enqueue((request) => {
      expect(request.messages.slice(-2).map((message) => message.content)).toEqual([
        'Ada: written while locked',
        'Ada: unlocked now',
      ]);
      return finalAnswer('Both read.');
    });
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'unlocked now' });
    expect((await waitForBotPosts(world, thread.id, 2))[1]!.content).toBe('Both read.');
  });

  it('logs a thread locked during the run, keeps the answer in memory, and carries on', async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('First.'), { ...finalAnswer('Too late to post.'), delayMs: 300 });
    const thread = await startConversation();
    await waitForBotPosts(world, thread.id, 1);
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'a slow one' });
    await discord.waitFor(() => model.requests.length === 2, { what: 'the second run' });
    discord.setBotPermissions(withoutManageThreads);
    await discord.updateThread(thread.id, { locked: true, archived: true });

    const line = await logged('could not post the answer');
    await world.bot.queues.idle();
    expect(line.fields.cause).toBe('the thread is locked');
    expect(messagePosts(thread.id).at(-1)!.status).toBe(400);
    expect(
      world.store.db.prepare("SELECT content FROM messages WHERE role = 'assistant' ORDER BY id").pluck().all(),
    ).toEqual(['First.', 'Too late to post.']);
    expect(world.store.runs.recent(null, 1)[0]).toMatchObject({ status: 'answered', delivered_at: expect.any(Number) });

    await discord.updateThread(thread.id, { locked: false });
    await stillAnswers(thread.id);
  });

  it('posts its answer in a thread archived during the run (posting reopens it, as on Discord)', async () => {
    const { discord, model } = await start();
    model.enqueue({ ...finalAnswer('Reopened.'), delayMs: 300 });
    const thread = await startConversation();
    await discord.waitFor(() => model.requests.length === 1);
    await discord.updateThread(thread.id, { archived: true });

    expect((await waitForBotPosts(world, thread.id, 1))[0]!.content).toBe('Reopened.');
    expect(discord.channel(thread.id)).toMatchObject({ thread_metadata: { archived: false } });
    await stillAnswers(thread.id);
  });
});

describe('the gateway drops', () => {
  it('answers a message sent while the connection was down, replayed by the RESUME', async () => {
    const { discord, model } = await start();
    model.enqueue(finalAnswer('First.'), finalAnswer('Heard you.'));
    const thread = await startConversation();
    await waitForBotPosts(world, thread.id, 1);

    discord.dropGateway();
    // Sent at once, before the client can reconnect: queued for the RESUME.
    const gap = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'sent in the gap' });
    expect((await waitForBotPosts(world, thread.id, 2))[1]!.content).toBe('Heard you.');
    expect(discord.gatewayPayloads.filter((payload) => payload.op === 6)).toHaveLength(1);
    expect(storedDiscordIds().has(gap.id)).toBe(true);
  });

  it(
    'catches up on a message sent while the connection was down when the session could not be resumed',
    { timeout: 30_000 },
    async () => {
      const { discord, model } = await start();
      model.enqueue(finalAnswer('First.'), (request) => {
        expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: lost by the gateway' });
        return finalAnswer('Caught up.');
      });
      const thread = await startConversation();
      await waitForBotPosts(world, thread.id, 1);

      // 4007 (invalid seq): the client opens a new session; what was sent meanwhile never comes over the gateway.
      discord.dropGateway({ code: 4007 });
      const gap = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'lost by the gateway' });
      // A new session waits for Discord's identify rate limit (one per 5 seconds) before it is ready.
      await discord.waitFor(() => botTexts(thread.id).length === 2, {
        timeoutMs: 15_000,
        what: 'the caught-up answer',
      });
      expect(botTexts(thread.id)[1]).toBe('Caught up.');
      expect(discord.gatewayPayloads.filter((payload) => payload.op === 2)).toHaveLength(2);
      expect(storedDiscordIds().has(gap.id)).toBe(true);
      await world.bot.queues.idle();
      expect(botTexts(thread.id)).toEqual(['First.', 'Caught up.']);
      await stillAnswers(thread.id);
    },
  );
});
