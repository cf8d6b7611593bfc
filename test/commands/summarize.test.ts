/**
 * /summarize (commands/summarize.ts, src/discord/catch-up/, src/catch-up/) through the bot, the fake
 * Discord and the scripted model: the history read through Discord's API, who said what with jump
 * links to messages read only, threads started, private or public, the asker's permissions and the
 * allowed places, the most messages read, pieces summed up and then together with a progress line,
 * the limits, a run of its own kind in the step log and /steps, and /forget-me.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import type { ChatRequest } from '../support/fake-model.ts';
import { apiError, finalAnswer, toolCalls } from '../support/fake-model.ts';
import { moderationsAt, startFakeContentCheck } from '../support/fake-content-check.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

const link = (world: BotWorld, channelId: string, messageId: string) =>
  `https://discord.com/channels/${world.discord.guildId}/${channelId}/${messageId}`;

/** The model's catch-up: `summary` for each call, whatever it read. */
const writes = (summary: string | ((request: ChatRequest) => string)) => (request: ChatRequest) =>
  toolCalls({
    name: 'write_catch_up',
    arguments: { summary: typeof summary === 'string' ? summary : summary(request) },
  });

/** What the model was sent to read, all calls together. */
const readByModel = (world: BotWorld) =>
  world.model.requests.map((request) => request.messages.map((message) => message.content).join('\n')).join('\n');

/** Bob's /summarize in #general, and the reply once it is no longer a progress line. */
async function summarize(
  world: BotWorld,
  options: Record<string, string | boolean> = {},
  author: 'ada' | 'bob' = 'bob',
) {
  const asked = await world.discord.userRunsCommand({
    name: 'summarize',
    author,
    channelId: world.discord.channels.general,
    options,
  });
  return asked.waitForReply((reply) => reply.content !== '' && !reply.content.startsWith('Reading '));
}

/** The GET requests that read #general's history. */
const historyReads = (world: BotWorld) =>
  world.discord.requests.filter(
    (request) => request.method === 'GET' && request.path === `/channels/${world.discord.channels.general}/messages`,
  );

describe('/summarize', () => {
  it('names who said what, links only the messages it read, lists the threads started, privately and pinging nobody', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    const general = discord.channels.general;
    const first = await discord.userSays({
      channelId: general,
      author: 'ada',
      content: 'The deploy is at 5pm, FALCONRIDGE.',
    });
    const second = await discord.userSays({ channelId: general, author: 'bob', content: 'OK, I will watch it.' });
    const thread = await discord.createThread(general, 'Release plan', discord.users.ada);
    model.otherwise(
      writes(
        `Ada said the deploy is at 5pm (#1); Bob will watch it (#2). Also https://discord.com/channels/1/2/999 and (#9). <@${discord.users.ada}>`,
      ),
    );

    const reply = await summarize(world, { since: '1h' });

    expect(reply.ephemeral).toBe(true);
    expect(readByModel(world)).toContain('#1 Ada: ');
    expect(readByModel(world)).toContain('FALCONRIDGE');
    expect(readByModel(world)).toContain('#2 Bob: ');
    expect(reply.content).toContain(`[#1](${link(world, general, first.id)})`);
    expect(reply.content).toContain(`[#2](${link(world, general, second.id)})`);
    expect(reply.content).not.toContain('/999');
    expect(reply.content).not.toContain('#9');
    expect(reply.content).toContain(`Release plan: https://discord.com/channels/${discord.guildId}/${thread.id}`);
    // The model's words ping nobody: every edit of the reply sets allowed_mentions to none.
    const edits = discord.requests.filter(
      (request) => request.method === 'PATCH' && request.path.startsWith('/webhooks/'),
    );
    expect(edits.length).toBeGreaterThan(0);
    for (const edit of edits)
      expect((edit.body as { allowed_mentions?: unknown }).allowed_mentions).toMatchObject({ parse: [] });
    // A run of its own kind, with the model's words in its step log and the asker and authors read.
    const runs = store.db.prepare("SELECT * FROM runs WHERE kind = 'catch-up'").all() as {
      id: string;
      status: string;
    }[];
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('answered');
    expect(store.db.prepare('SELECT count(*) FROM steps WHERE run_id = ?').pluck().get(runs[0]!.id)).toBe(1);
    expect(
      store.db
        .prepare('SELECT author_id FROM catch_up_authors WHERE run_id = ? ORDER BY author_id')
        .pluck()
        .all(runs[0]!.id),
    ).toEqual([discord.users.ada, discord.users.bob].sort());
  });

  it('posts for everyone with public: True', async () => {
    world = await startBotWorld();
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'ada',
      content: 'Lunch at noon.',
    });
    world.model.otherwise(writes('Ada: lunch at noon (#1).'));
    const reply = await summarize(world, { since: '1d', public: true });
    expect(reply.ephemeral).toBe(false);
    expect(world.discord.botMessages(world.discord.channels.general).at(-1)?.content).toContain('lunch at noon');
  });

  it("reads from the message linked on, and by default since the asker's own last message", async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const general = discord.channels.general;
    await discord.userSays({ channelId: general, author: 'ada', content: 'OLDTOPIC' });
    await discord.userSays({ channelId: general, author: 'bob', content: 'my last words' });
    const linked = await discord.userSays({ channelId: general, author: 'ada', content: 'NEWTOPIC' });
    model.otherwise(writes('Ada moved on (#1).'));

    await summarize(world);
    expect(readByModel(world)).toContain('NEWTOPIC');
    expect(readByModel(world)).not.toContain('my last words');
    expect(readByModel(world)).not.toContain('OLDTOPIC');

    await summarize(world, { since: link(world, general, linked.id) });
    expect(model.requests.at(-1)!.messages.at(-1)!.content).toContain('NEWTOPIC');
    expect(model.requests.at(-1)!.messages.at(-1)!.content).not.toContain('my last words');
  });

  it("refuses an asker who may not read the channel's history, whatever the bot may: nothing read, no model call", async () => {
    world = await startBotWorld();
    const { discord } = world;
    await discord.userSays({ channelId: discord.channels.general, author: 'ada', content: 'moderators only' });
    await discord.setChannelOverwrites(discord.channels.general, [
      { id: discord.users.bob, type: 1, allow: 0n, deny: PermissionFlagsBits.ReadMessageHistory },
    ]);
    const reply = await summarize(world, { since: '1h' });
    expect(reply.content).toBe('You cannot read the history of this channel, so I will not sum it up for you.');
    expect(historyReads(world)).toHaveLength(0);
    expect(world.model.requests).toHaveLength(0);
  });

  it('says so when the bot itself may not read the history, rather than that nothing was said', async () => {
    world = await startBotWorld();
    const { discord } = world;
    await discord.userSays({ channelId: discord.channels.general, author: 'ada', content: 'hello' });
    await discord.setChannelOverwrites(discord.channels.general, [
      { id: discord.roles.bot, type: 0, allow: 0n, deny: PermissionFlagsBits.ReadMessageHistory },
    ]);
    const reply = await summarize(world, { since: '1h' });
    expect(reply.content).toBe(
      'I may not read the history of this channel: a moderator can give me Read Message History here.',
    );
    expect(world.model.requests).toHaveLength(0);
  });

  it('never reads a channel the operator has not allowed (ALLOWED_CHANNEL_IDS)', async () => {
    world = await startBotWorld({ allowedChannelIds: ['1'] });
    const reply = await summarize(world, { since: '1h' });
    expect(reply.content).toBe('I do not read this channel: the operator has not allowed me here.');
    expect(historyReads(world)).toHaveLength(0);
  });

  it('reads at most SUMMARIZE_MAX_MESSAGES, the newest, and says where it cut', async () => {
    world = await startBotWorld({ summarizeMaxMessages: 10 });
    for (let index = 1; index <= 14; index++)
      await world.discord.userSays({
        channelId: world.discord.channels.general,
        author: 'ada',
        content: `note ${index}`,
      });
    world.model.otherwise(writes('Notes (#1).'));
    const reply = await summarize(world, { since: '1d' });
    expect(reply.content).toContain('Cut at the newest 10 messages');
    expect(readByModel(world)).toContain('note 14');
    expect(readByModel(world)).not.toContain('note 4 ');
    expect(readByModel(world)).not.toMatch(/note 4\b/);
  });

  it('sums up a long span in pieces within the window, then together, with a progress line', async () => {
    world = await startBotWorld({}, {}, {}, { memory: { tokenBudget: 600 } });
    for (let index = 1; index <= 40; index++)
      await world.discord.userSays({
        channelId: world.discord.channels.general,
        author: index % 2 ? 'ada' : 'bob',
        content: `point ${index}: ${'words about the release '.repeat(4)}`,
      });
    world.model.otherwise(
      writes((request) =>
        String(request.messages.at(-1)?.content).startsWith('Part 1:') ? 'All merged (#40).' : 'A piece (#1).',
      ),
    );
    const asked = await world.discord.userRunsCommand({
      name: 'summarize',
      author: 'bob',
      channelId: world.discord.channels.general,
      options: { since: '1d' },
    });
    const reply = await asked.waitForReply((candidate) => candidate.content.includes('All merged'));
    const merges = world.model.requests.filter((request) =>
      String(request.messages.at(-1)?.content).startsWith('Part 1:'),
    );
    const pieces = world.model.requests.length - merges.length;
    expect(pieces).toBeGreaterThan(1);
    expect(merges.length).toBeGreaterThan(0);
    expect(
      asked.replies().some((candidate) => /^Reading 40 messages: \d+ of \d+ parts summed up…$/.test(candidate.content)),
    ).toBe(true);
    expect(reply.content).toContain('[#40](');
  });

  it("counts against the asker's rate like a message to the bot", async () => {
    world = await startBotWorld({ userMessagesPerMinute: 1 });
    await world.discord.userSays({ channelId: world.discord.channels.general, author: 'ada', content: 'hello' });
    world.model.otherwise(writes('Ada said hello (#1).'));
    await summarize(world, { since: '1h' });
    const second = await summarize(world, { since: '1h' });
    expect(second.content).toMatch(/^You have sent 1 messages in the last minute\./);
    expect(world.model.requests).toHaveLength(1);
  });

  it("spends the server's daily budget as a run does: past it, the next /summarize is refused before any model call", async () => {
    world = await startBotWorld({ dailyTokenBudget: 100 });
    await world.discord.userSays({ channelId: world.discord.channels.general, author: 'ada', content: 'hello' });
    world.model.otherwise(writes('Ada said hello (#1).'));
    await summarize(world, { since: '1h' });
    const second = await summarize(world, { since: '1h' });
    expect(second.content).toMatch(/^This server has used its 100 tokens for today\./);
    expect(world.model.requests).toHaveLength(1);
  });

  it('is listed by /steps as a catch-up run', async () => {
    world = await startBotWorld();
    await world.discord.userSays({ channelId: world.discord.channels.general, author: 'bob', content: 'hello' });
    world.model.otherwise(writes('Bob said hello (#1).'));
    await summarize(world, { since: '1h' });
    const steps = await world.discord.userRunsCommand({
      name: 'steps',
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    expect((await steps.waitForReply()).content).toContain('catch-up answered');
  });

  it("/forget-me of a member it read leaves none of their words in its step log; another's catch-up stays", async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'bob',
      content: 'my secret is OSPREYMANTLE',
    });
    model.otherwise(
      writes((request) =>
        String(request.messages.at(-1)?.content).includes('OSPREYMANTLE') ? 'Bob said OSPREYMANTLE (#1).' : 'Quiet.',
      ),
    );
    await summarize(world, { since: '1h' }, 'ada');
    await discord.userSays({ channelId: discord.channels.random, author: 'ada', content: 'hi' });
    await discord
      .userRunsCommand({
        name: 'summarize',
        author: 'ada',
        channelId: discord.channels.random,
        options: { since: '1h' },
      })
      .then((asked) => asked.waitForReply((reply) => reply.content !== ''));
    const stepsText = () => JSON.stringify(store.db.prepare('SELECT message FROM steps').all());
    expect(stepsText()).toContain('OSPREYMANTLE');

    const forgot = await discord.userRunsCommand({
      name: 'forget-me',
      author: 'bob',
      channelId: discord.channels.general,
      options: { confirm: true },
    });
    await forgot.waitForReply((reply) => reply.content !== '');

    expect(stepsText()).not.toContain('OSPREYMANTLE');
    // Ada's catch-up in #random read nobody but her: it stays.
    expect(store.db.prepare("SELECT count(*) FROM runs WHERE kind = 'catch-up'").pluck().get()).toBe(1);
  });

  it('holds back a summary the content check flags, and records the flag on its run', async () => {
    const check = await startFakeContentCheck('FORBIDDEN');
    try {
      world = await startBotWorld(
        {},
        {},
        {},
        {
          contentCheck: moderationsAt(check),
        },
      );
      await world.discord.userSays({ channelId: world.discord.channels.general, author: 'ada', content: 'hello' });
      world.model.otherwise(writes('Ada said FORBIDDEN things (#1).'));
      const reply = await summarize(world, { since: '1h' });
      expect(reply.content).toBe('I wrote an answer, but it was held back: a content check flagged it.');
      const flag = world.store.db
        .prepare("SELECT f.target FROM content_flags f JOIN runs r ON r.id = f.run_id WHERE r.kind = 'catch-up'")
        .pluck()
        .get();
      expect(flag).toBe('answer');
    } finally {
      await world.close();
      world = undefined as unknown as BotWorld; // closed before its check: afterEach has nothing left to close
      await check.close();
    }
  });

  it('sums up a thread, linking its messages in the thread', async () => {
    world = await startBotWorld();
    const { discord } = world;
    const thread = await discord.createThread(discord.channels.general, 'Planning', discord.users.ada);
    const said = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'THREADWORD' });
    world.model.otherwise(writes('Ada planned (#1).'));
    const asked = await discord.userRunsCommand({
      name: 'summarize',
      author: 'bob',
      channelId: thread.id,
      options: { since: '1h' },
    });
    const reply = await asked.waitForReply((candidate) => candidate.content !== '');
    expect(readByModel(world)).toContain('THREADWORD');
    expect(reply.content).toContain(`[#1](${link(world, thread.id, said.id)})`);
  });

  it('sums up a DM with the bot (ALLOW_DMS), with @me links', async () => {
    world = await startBotWorld({ allowDms: true });
    const { discord } = world;
    world.model.enqueue(finalAnswer('Noted.'));
    const said = await discord.userSaysInDm({ author: 'bob', content: 'DMWORD, remember it' });
    const dm = discord.dmChannelOf('bob');
    await waitForBotPosts(world, dm, 1);
    world.model.otherwise(writes('Bob asked to remember (#1).'));
    const asked = await discord.userRunsCommand({
      name: 'summarize',
      author: 'bob',
      channelId: dm,
      options: { since: '1h' },
    });
    const reply = await asked.waitForReply((candidate) => candidate.content !== '');
    expect(reply.content).toContain(`[#1](https://discord.com/channels/@me/${dm}/${said.id})`);
  });

  it('is stopped by a /forget-me of a member it read: posts nothing, keeps no run', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'bob',
      content: 'my secret is OSPREYMANTLE',
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const reply = toolCalls({ name: 'write_catch_up', arguments: { summary: 'Bob said OSPREYMANTLE (#1).' } });
    model.enqueue({
      headers: { 'content-type': 'application/json' },
      async *bodyPieces() {
        await released;
        yield JSON.stringify(reply.body);
      },
    });
    const asked = await discord.userRunsCommand({
      name: 'summarize',
      author: 'ada',
      channelId: discord.channels.general,
      options: { since: '1h' },
    });
    await discord.waitFor(() => model.requests.length === 1);
    const forgot = await discord.userRunsCommand({
      name: 'forget-me',
      author: 'bob',
      channelId: discord.channels.general,
      options: { confirm: true },
    });
    await forgot.waitForReply((candidate) => candidate.content !== '');
    // The forget stopped it (the model's answer never came): the asker is told without it.
    const answer = await asked.waitForReply((candidate) => candidate.content !== '');
    release();
    expect(answer.content).toBe('Someone whose words I read was forgotten meanwhile: ask again.');
    expect(JSON.stringify(asked.replies())).not.toContain('OSPREYMANTLE');
    expect(store.db.prepare("SELECT count(*) FROM runs WHERE kind = 'catch-up'").pluck().get()).toBe(0);
  });

  /** Ada's /summarize of the last hour in #general, once Bob has said something there. */
  async function adaAsks(world: BotWorld) {
    await world.discord.userSays({ channelId: world.discord.channels.general, author: 'bob', content: 'hello all' });
    return world.discord.userRunsCommand({
      name: 'summarize',
      author: 'ada',
      channelId: world.discord.channels.general,
      options: { since: '1h' },
    });
  }

  it('stops at its time limit, well within the 15 minutes of the reply, and says so', async () => {
    world = await startBotWorld({ summarizeTimeoutMs: 200 });
    const { model, store } = world;
    model.enqueue({ hang: true });
    const asked = await adaAsks(world);
    const answer = await asked.waitForReply((candidate) => candidate.content.startsWith('This took too long'));
    expect(answer.content).toBe(
      'This took too long, so I stopped (a /summarize takes under a minute, within the 15 minutes Discord gives me to answer): ask for a shorter span with `since:`.',
    );
    expect(store.db.prepare("SELECT status FROM runs WHERE kind = 'catch-up'").pluck().all()).toEqual(['failed']);
  });

  it("waits at the model's rate-limit gate as a run does, saying so, and tells the gate of a long pause", async () => {
    world = await startBotWorld({}, {}, { maxRetryWaitSeconds: 1 });
    const { model } = world;
    // Over the client's own wait (so it is reported, not slept), and short for a test.
    model.enqueue(apiError(429, 'Rate limit reached', { headers: { 'retry-after': '2' } }));
    const first = await adaAsks(world);
    expect((await first.waitForReply((reply) => reply.content !== '')).content).toBe(
      'The model is rate-limited right now. Please try again in 2 seconds.',
    );
    // The next one, meanwhile, waits at the gate and is told when it will come; then it is answered.
    model.otherwise(writes('Bob said hello (#1).'));
    const second = await world.discord.userRunsCommand({
      name: 'summarize',
      author: 'bob',
      channelId: world.discord.channels.general,
      options: { since: '1h' },
    });
    const notice = await second.waitForReply((reply) => reply.content.startsWith('The model is rate-limited'));
    expect(notice.content).toMatch(
      /^The model is rate-limited right now\. I will answer here in about (2 seconds|1 second)\.$/,
    );
    const answer = await second.waitForReply((reply) => reply.content.includes('Bob said hello'));
    expect(answer.content).toContain('Bob said hello');
  });

  it("/stop in the channel stops the asker's /summarize in progress; another member's /stop does not", async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    model.enqueue({ hang: true });
    const asked = await adaAsks(world);
    await discord.waitFor(() => model.requests.length === 1, { what: 'the model asked' });
    const stop = (author: 'ada' | 'bob') =>
      discord.userRunsCommand({ name: 'stop', author, channelId: discord.channels.general });
    expect((await (await stop('bob')).waitForReply()).content).not.toContain('Stopped');
    expect((await (await stop('ada')).waitForReply()).content).toBe('Stopped your /summarize here.');
    const answer = await asked.waitForReply((candidate) => candidate.content !== '');
    expect(answer.content).toBe('Stopped: nothing was summed up.');
    expect(store.db.prepare("SELECT status FROM runs WHERE kind = 'catch-up'").pluck().all()).toEqual(['failed']);
  });
});
