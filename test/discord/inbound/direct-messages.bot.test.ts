/**
 * Direct messages (ALLOW_DMS), through the real bot process against the fakes: a DM is a
 * conversation of its own with memory; off, the bot does not even ask Discord for DMs; a person who
 * shares no server with the bot is refused once; DMs have a daily token budget of their own;
 * moderator-only tools are neither offered nor run there; /reset works in a DM.
 */
import { dirname } from 'node:path';
import { GatewayIntentBits, GatewayOpcodes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../db/store.ts';
import { noSharedServerNotice } from '../../../src/discord/inbound/direct-messages.ts';
import type { BotProcess } from '../../support/bot-process.ts';
import { useBotProcessWorld } from '../../support/bot-process-world.ts';
import { runScript } from '../../support/run-process.ts';
import { type ChatRequest, finalAnswer, toolCalls } from '../../support/fake-model.ts';

const world = useBotProcessWorld('dms-');
let bot: BotProcess | null = null;
afterEach(() => {
  if (process.env.DEBUG_DMS)
    console.log(
      bot?.stdout
        .split('\n')
        .filter((l) => !l.includes('"level":20'))
        .join('\n'),
    );
  bot = null;
});

const start = async (env: Record<string, string> = {}) => {
  bot = await world.start({ ALLOW_DMS: 'on', ...env });
  return bot;
};

/** The bot's messages in the person's DM channel. */
const botPostsInDm = (author: 'ada' | 'bob') => world.discord.botMessages(world.discord.dmChannelOf(author));
const waitForDmPosts = (author: 'ada' | 'bob', count: number, what: string) =>
  world.discord.waitFor(() => botPostsInDm(author).length >= count && botPostsInDm(author), { what });
const toolNames = (request: ChatRequest) => (request.tools ?? []).map((tool) => tool.function.name);
const said = (request: ChatRequest) => request.messages.map((message) => message.content ?? '').join('\n');
/** The intents the bot identified with (its IDENTIFY to the gateway). */
const identifiedIntents = () =>
  Number(
    (world.discord.gatewayPayloads.find((payload) => payload.op === GatewayOpcodes.Identify)!.d as { intents: number })
      .intents,
  );
const logCount = (process: BotProcess, msg: string) =>
  process.stdout.split('\n').filter((line) => line.includes(`"msg":"${msg}"`)).length;

describe('ALLOW_DMS=on', () => {
  it('answers a DM as a conversation with memory: the second DM sees the first in the model request', async () => {
    await start();
    expect(identifiedIntents() & GatewayIntentBits.DirectMessages).toBe(GatewayIntentBits.DirectMessages);
    world.model.enqueue(finalAnswer('Noted: 42.'), finalAnswer('It was 42.'));

    await world.discord.userSaysInDm({ author: 'bob', content: 'Remember the number 42.' });
    await waitForDmPosts('bob', 1, 'the first answer in the DM');
    await world.discord.userSaysInDm({ author: 'bob', content: 'Which number was it?' });
    const posts = await waitForDmPosts('bob', 2, 'the second answer in the DM');

    expect(posts.map((post) => post.content)).toEqual(['Noted: 42.', 'It was 42.']);
    expect(posts.every((post) => post.guild_id === undefined)).toBe(true);
    const second = world.model.requests[1]!;
    expect(said(second)).toContain('Remember the number 42.');
    expect(said(second)).toContain('Noted: 42.');
    expect(said(second)).toContain('Which number was it?');
    expect(second.messages[0]!.content).toContain('private Discord conversation (direct messages)');

    // The operator sees the DM's runs; a moderator of the server does not.
    const steps = await runScript('src/steps.ts', {
      cwd: dirname(world.databasePath),
      env: { DATABASE_PATH: world.databasePath },
    });
    expect(steps.stdout).toContain('Direct messages with Bob');
    const runId = String((await bot!.waitForLog('run started')).runId);
    const asked = await world.discord.userRunsCommand({
      name: 'steps',
      channelId: world.discord.channels.general,
      author: 'ada',
      options: { run: runId },
    });
    expect((await asked.waitForReply()).content).toBe(
      `No single run of this server has an id starting with "${runId}".`,
    );
  });

  it('an edited DM is edited in memory, a deleted one forgotten', async () => {
    await start();
    world.model.enqueue(finalAnswer('Noted.'), finalAnswer('Noted too.'), finalAnswer('42 it is.'));
    const first = await world.discord.userSaysInDm({ author: 'bob', content: 'Remember the number 41.' });
    await waitForDmPosts('bob', 1, 'the first answer');
    const second = await world.discord.userSaysInDm({ author: 'bob', content: 'And the word banana.' });
    await waitForDmPosts('bob', 2, 'the second answer');

    await world.discord.userEdits(first.channel_id, first.id, 'Remember the number 42.');
    await world.discord.userDeletes(second.channel_id, second.id);
    const store = openStore(world.databasePath, { readOnly: true });
    const stored = (id: string) =>
      store.db.prepare('SELECT content FROM messages WHERE discord_message_id = ?').pluck().get(id);
    try {
      await world.discord.waitFor(
        () => stored(first.id) === 'Remember the number 42.' && stored(second.id) === undefined,
        {
          what: 'the edit and the deletion stored',
        },
      );
    } finally {
      store.close();
    }
    await world.discord.userSaysInDm({ author: 'bob', content: 'Which number?' });
    await waitForDmPosts('bob', 3, 'the third answer');

    expect(said(world.model.requests[2]!)).toContain('Remember the number 42.');
    expect(said(world.model.requests[2]!)).not.toContain('number 41');
    expect(said(world.model.requests[2]!)).not.toContain('banana');
  });

  it('answers at its next start a DM sent while it was down', async () => {
    const first = await start();
    world.model.enqueue(finalAnswer('Hello.'), finalAnswer('Back now, and here is my answer.'));
    await world.discord.userSaysInDm({ author: 'bob', content: 'Hello?' });
    await waitForDmPosts('bob', 1, 'the first answer');
    first.child.kill('SIGTERM');
    await first.exited;

    await world.discord.userSaysInDm({ author: 'bob', content: 'Are you there? I wrote while you were away.' });
    await start();
    const posts = await waitForDmPosts('bob', 2, 'the answer after the restart');

    expect(posts.at(-1)!.content).toBe('Back now, and here is my answer.');
    expect(said(world.model.requests[1]!)).toContain('I wrote while you were away.');
  });

  it('neither offers nor runs a moderator-only tool in a DM, even to a moderator of the server', async () => {
    await start();
    world.model.enqueue(
      toolCalls({ name: 'search_server', arguments: { query: 'launch', limit: null } }),
      finalAnswer('I cannot search the server from here.'),
    );

    await world.discord.userSaysInDm({ author: 'ada', content: 'Search the server for the launch.' });
    // After the tool's post: the answer.
    await world.discord.waitFor(
      () => botPostsInDm('ada').some((post) => post.content === 'I cannot search the server from here.'),
      { what: 'the answer in the DM' },
    );

    expect(world.model.requests.map(toolNames).every((names) => !names.includes('search_server'))).toBe(true);
    expect(toolNames(world.model.requests[0]!)).toContain('search_conversation');
    const observation = world.model.requests[1]!.messages.find((message) => message.role === 'tool');
    expect(observation?.content).toContain('Unknown tool "search_server"');
  });

  it('refuses a person who shares no server with the bot, with one reply, and calls no model', async () => {
    const started = await start();
    world.discord.addStranger({ id: '990000000000000001', username: 'stranger' });
    const stranger = { id: '990000000000000001', username: 'stranger' };

    await world.discord.userSaysInDm({ author: stranger, content: 'Hello?' });
    const channelId = world.discord.dmChannelOf(stranger);
    const refusal = await world.discord.waitFor(() => world.discord.botMessages(channelId)[0], { what: 'the refusal' });
    await world.discord.userSaysInDm({ author: stranger, content: 'Hello again?' });
    await world.discord.waitFor(() => logCount(started, 'direct message refused: no server shared') === 2, {
      what: 'the second DM handled',
    });

    expect(refusal.content).toBe(noSharedServerNotice);
    expect(world.discord.botMessages(channelId)).toHaveLength(1);
    expect(world.model.requests).toHaveLength(0);
  });

  it('with shards, answers a member of a server only another shard holds (every DM comes to shard 0)', async () => {
    const far = { id: '990000000000000002', username: 'far' };
    world.discord.addStranger({ ...far, memberOf: world.discord.addGuild('Far server', { shard: [1, 2] }).guildId });
    bot = await world.start({ ALLOW_DMS: 'on', SHARD_COUNT: '2' });
    await bot.waitForLog('shards ready', 30_000);
    world.model.enqueue(finalAnswer('Hello from shard 0.'));

    await world.discord.userSaysInDm({ author: far, content: 'Hi?' });
    const answer = await world.discord.waitFor(() => world.discord.botMessages(world.discord.dmChannelOf(far))[0], {
      what: 'the answer',
      timeoutMs: 15_000,
    });

    expect(answer.content).toBe('Hello from shard 0.');
  }, 60_000);

  it('keeps a daily token budget of its own for DMs (DM_DAILY_TOKENS), apart from the server budget', async () => {
    await start({ DM_DAILY_TOKENS: '100' });
    world.model.enqueue(finalAnswer('First, and over the budget.'), finalAnswer('In the server still.'));

    await world.discord.userSaysInDm({ author: 'bob', content: 'Spend it.' });
    await waitForDmPosts('bob', 1, 'the first answer');
    await world.discord.userSaysInDm({ author: 'bob', content: 'And again?' });
    const [, refusal] = await waitForDmPosts('bob', 2, 'the budget notice');
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'bob',
      content: `<@${world.discord.botUser.id}> and here?`,
      mentions: [world.discord.botUser.id],
    });
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.discord.botMessages(thread.id)[0], { what: 'the answer in the server' });

    expect(refusal!.content).toMatch(
      /^Direct messages to me have used their 100 tokens for today\. I will answer again <t:\d+:R>/,
    );
    expect(world.model.requests).toHaveLength(2);
  });

  it('keeps counting what was spent after a /forget-me: the DM budget is not given back with the words', async () => {
    await start({ DM_DAILY_TOKENS: '100' });
    world.model.enqueue(finalAnswer('First, and over the budget.'));
    await world.discord.userSaysInDm({ author: 'bob', content: 'Spend it.' });
    await waitForDmPosts('bob', 1, 'the answer');
    const forgotten = await (
      await world.discord.userRunsCommand({
        name: 'forget-me',
        channelId: world.discord.dmChannelOf('bob'),
        author: 'bob',
        options: { confirm: true },
      })
    ).waitForReply();
    expect(forgotten.content).toMatch(/Deleted for good/);

    // The budget all DMs share: Ada, never told before, is told it is spent.
    await world.discord.userSaysInDm({ author: 'ada', content: 'My turn?' });
    const [refusal] = await waitForDmPosts('ada', 1, 'the budget notice');
    expect(refusal!.content).toMatch(/^Direct messages to me have used their 100 tokens for today\./);
    expect(world.model.requests).toHaveLength(1);
  });

  it('/reset in a DM makes the conversation start afresh', async () => {
    await start();
    world.model.enqueue(finalAnswer('Noted: 42.'), finalAnswer('I do not know.'));
    await world.discord.userSaysInDm({ author: 'bob', content: 'Remember the number 42.' });
    await waitForDmPosts('bob', 1, 'the first answer');

    const reset = await world.discord.userRunsCommand({
      name: 'reset',
      channelId: world.discord.dmChannelOf('bob'),
      author: 'bob',
    });
    const reply = await reset.waitForReply();
    await world.discord.userSaysInDm({ author: 'bob', content: 'Which number was it?' });
    await waitForDmPosts('bob', 3, 'the answer after the reset');

    expect(reply.content).toBe('I start afresh from here: what we said before is out of my memory.');
    expect(said(world.model.requests[1]!)).not.toContain('Remember the number 42.');
    expect(said(world.model.requests[1]!)).toContain('Which number was it?');
  });

  it('offers /reset, /stop, /model, /forget-me, /memory and /summarize in DMs, the rest in servers only; /forget-me there forgets the DMs', async () => {
    await start();
    world.model.enqueue(finalAnswer('Noted.'));
    await world.discord.userSaysInDm({ author: 'bob', content: 'My secret is 42.' });
    await waitForDmPosts('bob', 1, 'the answer');
    const inDm = (name: string, options: Record<string, boolean> = {}) =>
      world.discord.userRunsCommand({ name, channelId: world.discord.dmChannelOf('bob'), author: 'bob', options });

    const inDms = world.discord
      .registeredCommands()
      .filter((command) => command.contexts?.includes(1))
      .map((command) => command.name)
      .sort();
    const stopped = await (await inDm('stop')).waitForReply();
    const forgotten = await (await inDm('forget-me', { confirm: true })).waitForReply();
    const chosen = await (
      await world.discord.userRunsCommand({
        name: 'model',
        channelId: world.discord.dmChannelOf('bob'),
        author: 'bob',
        options: { model: 'gpt-4.1-mini' },
      })
    ).waitForReply();

    expect(inDms).toEqual(['forget-me', 'memory', 'model', 'reset', 'stop', 'summarize']);
    expect(stopped.content).toBe('I am not working on an answer here right now.');
    expect(chosen.content).toBe('I will answer with **gpt-4.1-mini** in our conversation.');
    const store = openStore(world.databasePath, { readOnly: true });
    expect(store.db.prepare('SELECT guild_id, scope, scope_id, value FROM setting_changes').all()).toEqual([
      { guild_id: '@me', scope: 'thread', scope_id: world.discord.dmChannelOf('bob'), value: 'gpt-4.1-mini' },
    ]);
    store.close();
    expect(forgotten).toMatchObject({ ephemeral: true });
    expect(forgotten.content).toMatch(
      /^Deleted for good, of our direct messages:\n- 1 message you wrote, with 0 images\n- 1 answer I gave them/,
    );
  });
});

describe('ALLOW_DMS=off (the default)', () => {
  it('does not ask Discord for DMs: a DM gets no answer and no model call, while the server is answered', async () => {
    await start({ ALLOW_DMS: 'off' });
    expect(identifiedIntents() & GatewayIntentBits.DirectMessages).toBe(0);
    world.model.enqueue(finalAnswer('In the server.'));

    await world.discord.userSaysInDm({ author: 'bob', content: 'Hello in private?' });
    // The gateway keeps its order: once the later mention is answered, the DM was passed over.
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'bob',
      content: `<@${world.discord.botUser.id}> hello here`,
      mentions: [world.discord.botUser.id],
    });
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.discord.botMessages(thread.id)[0], { what: 'the answer in the server' });

    expect(botPostsInDm('bob')).toEqual([]);
    expect(world.model.requests).toHaveLength(1);
  });
});
