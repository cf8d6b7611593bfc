/**
 * A flood from one user: thirty messages in a thread, ten mentions in a channel and three /ask at
 * once. USER_MESSAGES_PER_MINUTE lets exactly that many through, answered; the rest are refused
 * with one public notice for the whole window (and a private one per /ask, which Discord requires
 * an answer to); nobody else is held back. Past DAILY_TOKEN_BUDGET, the same flood makes no model
 * call and gets one notice per person for the day.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { type ChatRequest, finalAnswer, text } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

const answerLast = (request: ChatRequest) =>
  finalAnswer(`Answer to «${request.messages.findLast((message) => message.role === 'user')?.content}».`);
const notices = (pattern: RegExp) => world.discord.botMessages().filter((post) => pattern.test(post.content));

/** Stored user messages of `authorId`, and whether a delivered run covers each. */
function storedOf(authorId: string): { content: string; answered: boolean }[] {
  const runs = world.store.db
    .prepare('SELECT trigger_message_ids FROM runs WHERE delivered_at IS NOT NULL')
    .pluck()
    .all() as string[];
  const covered = new Set(runs.flatMap((ids) => JSON.parse(ids) as number[]));
  const rows = world.store.db
    .prepare("SELECT id, content FROM messages WHERE role = 'user' AND author_id = ? ORDER BY id")
    .all(authorId) as { id: number; content: string }[];
  return rows.map((row) => ({ content: row.content, answered: covered.has(row.id) }));
}

/**
 * The flood; resolves with /ask's replies (a refusal, or "Started: …" for one let through) once
 * the bot has handled every message and command of it and ended every run they queued.
 */
async function flood(threadId: string): Promise<{ ephemeral: boolean; content: string }[]> {
  const { discord } = world;
  const said = [];
  for (let index = 0; index < 30; index++)
    said.push(await discord.userSays({ channelId: threadId, author: 'bob', content: `flood ${index}` }));
  for (let index = 0; index < 10; index++) {
    said.push(
      await discord.userSays({
        channelId: discord.channels.random,
        author: 'bob',
        content: `${mentionOf(world)} mention ${index}`,
        mentions: [discord.botUser.id],
      }),
    );
  }
  const replies = [];
  const asks = [];
  for (let index = 0; index < 3; index++) {
    const ask = await discord.userRunsCommand({
      name: 'ask',
      options: { prompt: `ask ${index}` },
      author: 'bob',
      channelId: discord.channels.general,
    });
    asks.push(ask);
    replies.push(await ask.waitForReply());
  }
  await world.handled('message', ...said.map((message) => message.id));
  await world.handled('interaction', ...asks.map((ask) => ask.id));
  return replies;
}

/** Sends each text as `author` in `channelId`, and waits until the bot has handled them all. */
async function say(channelId: string, author: 'ada' | 'bob', texts: string[]): Promise<void> {
  const said = [];
  for (const content of texts)
    said.push(
      await world.discord.userSays({
        channelId,
        author,
        content,
        mentions: content.includes(mentionOf(world)) ? [world.discord.botUser.id] : [],
      }),
    );
  await world.handled('message', ...said.map((message) => message.id));
}

describe('USER_MESSAGES_PER_MINUTE under a flood', () => {
  it('lets exactly the limit through and answers it, refuses the rest with one notice, and holds nobody else back', async () => {
    world = await startBotWorld({ userMessagesPerMinute: 3 });
    const { discord, model } = world;
    model.otherwise(answerLast);
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} start`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await waitForBotPosts(world, thread.id, 1);

    const asks = await flood(thread.id);

    // Exactly three let through, whichever the bot saw first (commands do not wait for messages), all answered.
    const admitted = storedOf(discord.users.bob);
    expect(admitted).toHaveLength(3);
    expect(admitted.every((message) => message.answered)).toBe(true);
    const refusal = /^You have sent 3 messages in the last minute\. I will answer again <t:\d+:R>/;
    const askRefusals = asks.filter((reply) => refusal.test(reply.content));
    expect(askRefusals.every((reply) => reply.ephemeral)).toBe(true);
    expect(asks.length - askRefusals.length).toBe(
      admitted.filter((message) => message.content.startsWith('ask ')).length,
    );
    // One public notice for the whole window, pinging nobody.
    const refusals = notices(refusal);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.mentions).toEqual([]);
    const threadsLetThrough = admitted.filter((message) => !message.content.startsWith('flood ')).length;
    expect(discord.threads()).toHaveLength(1 + threadsLetThrough);
    // No model call but for runs of admitted messages (one call each).
    expect(model.requests).toHaveLength(world.store.db.prepare('SELECT count(*) FROM runs').pluck().get() as number);

    // Someone else is not held back.
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'and me?' });
    await discord.waitFor(() => discord.botMessages(thread.id).at(-1)!.content === 'Answer to «Ada: and me?».', {
      what: 'Ada answered',
    });
  });
});

describe('DAILY_TOKEN_BUDGET under a flood', () => {
  it('once the budget is spent, calls no model for the flood and tells each person once', async () => {
    world = await startBotWorld({ dailyTokenBudget: 100 });
    const { discord, model } = world;
    model.otherwise(answerLast);
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} spend it`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await waitForBotPosts(world, thread.id, 1); // 120 tokens: over the budget
    const calls = model.requests.length;

    const asks = await flood(thread.id);
    await say(
      thread.id,
      'ada',
      Array.from({ length: 5 }, (_, index) => `ada ${index}`),
    );

    expect(model.requests).toHaveLength(calls);
    expect(
      asks.every(
        (reply) =>
          reply.ephemeral &&
          /^This server has used its 100 tokens for today\. I will answer again <t:\d+:R>/.test(reply.content),
      ),
    ).toBe(true);
    const refusals = notices(/^This server has used its 100 tokens for today/);
    expect(refusals.map((post) => post.message_reference?.message_id)).toEqual([
      discord.messages(thread.id).find((message) => message.content === 'flood 0')!.id,
      discord.messages(thread.id).find((message) => message.content === 'ada 0')!.id,
    ]);
    expect(discord.threads()).toHaveLength(1);
    expect(storedOf(discord.users.bob)).toEqual([]);
  });

  it('a flood of new conversations at once is held to the budget: each run is admitted only when its first model call has its turn', async () => {
    // One model call at a time: 120 tokens each against 200, so the third run is refused.
    world = await startBotWorld({ dailyTokenBudget: 200, maxConcurrentRuns: 1 });
    const { discord, model } = world;
    model.otherwise(answerLast);
    await say(
      discord.channels.general,
      'bob',
      Array.from({ length: 8 }, (_, index) => `${mentionOf(world)} question ${index}`),
    );

    expect(discord.threads()).toHaveLength(8);
    expect(model.requests).toHaveLength(2);
    const runs = world.store.db.prepare('SELECT status, error_code FROM runs ORDER BY started_at').all() as {
      status: string;
      error_code: string | null;
    }[];
    expect(runs.filter((run) => run.status === 'answered')).toHaveLength(2);
    expect(runs.filter((run) => run.status === 'failed' && run.error_code === 'call-refused')).toHaveLength(6);
    // Bob is told once; the other refused runs post nothing. Every question is kept.
    expect(notices(/^This server has used its 200 tokens for today/)).toHaveLength(1);
    expect(discord.botMessages().filter((post) => post.content.startsWith('Answer to'))).toHaveLength(2);
    expect(discord.botMessages()).toHaveLength(3);
    expect(storedOf(discord.users.bob)).toHaveLength(8);
  });

  it.each([
    ['text', text('let me think')],
    ['a refused final_answer', finalAnswer(42 as unknown as string)],
  ])(
    'a run waiting for the model sees the tokens of a reply ahead of it that did not answer (%s)',
    async (_, first) => {
      // 120 tokens a call against 100: once the first call is charged, no other run is admitted.
      world = await startBotWorld({ dailyTokenBudget: 100, maxConcurrentRuns: 1 });
      const { discord, model } = world;
      let replies = 0;
      model.otherwise((request: ChatRequest) => (replies++ === 0 ? first : answerLast(request)));
      await say(discord.channels.general, 'bob', [`${mentionOf(world)} question 0`, `${mentionOf(world)} question 1`]);

      const runs = world.store.db.prepare('SELECT error_code FROM runs ORDER BY started_at').pluck().all();
      expect(runs).toEqual([null, 'call-refused']);
      expect(model.requests).toHaveLength(2);
    },
  );

  it('at the default of 4 model calls at once, a flood passes the budget by no more than the runs already under way', async () => {
    world = await startBotWorld({ dailyTokenBudget: 200, maxConcurrentRuns: 4 });
    const { discord, model } = world;
    model.otherwise(answerLast);
    await say(
      discord.channels.general,
      'bob',
      Array.from({ length: 12 }, (_, index) => `${mentionOf(world)} question ${index}`),
    );

    expect(discord.threads()).toHaveLength(12);
    expect(world.store.db.prepare("SELECT count(*) FROM runs WHERE status = 'running'").pluck().get()).toBe(0);

    // How many start before the first is charged depends on timing: at most four together against
    // nothing spent, at most one more once 120 of 200 are; none after that. At least the budget's
    // two. Without the admission all twelve would run.
    expect(model.requests.length).toBeGreaterThanOrEqual(2);
    expect(model.requests.length).toBeLessThanOrEqual(5);
    expect(notices(/^This server has used its 200 tokens for today/)).toHaveLength(1);
  });
});
