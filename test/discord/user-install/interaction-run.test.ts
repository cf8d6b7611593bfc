/**
 * A user install (USER_INSTALL=on) used where no server added the bot (src/discord/user-install/):
 * the answer comes through the interaction alone (the card, then at most Discord's follow-ups), the
 * person's conversation of the place remembers, the budget of user-installed use applies, no
 * server's settings do, no moderator-only tool is offered, and a run that would outlive the token
 * stops and says so. The fake Discord refuses every REST call to such a place (403 Missing Access).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { userInstallServerId } from '../../../db/conversations.ts';
import { autoModNotice, interactionTimeNotice } from '../../../src/discord/user-install/interaction-run.ts';
import { followUpLimit } from '../../../src/discord/user-install/interaction-card.ts';
import { buildToolRegistry } from '../../../src/agent/tool-registry.ts';
import { builtInTools } from '../../../tools/index.ts';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { purgeCache } from '../../support/command-world.ts';
import { moderationsAt, startFakeContentCheck } from '../../support/fake-content-check.ts';
import { messageNotAnswered } from '../../../src/discord/runs/message-check.ts';
import { type ChatRequest, finalAnswer, toolCalls } from '../../support/fake-model.ts';
import type { FakeAuthor, FakeInteraction, FakeInteractionReply } from '../../support/fake-discord.ts';
import { startFakeModelServer } from '../../support/fake-model.ts';
import { seedIds } from '../../support/fake-discord/world.ts';
import { answer } from '../../support/model-servers/brain.ts';
import { compliant } from '../../support/model-servers/quirks.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

const userInstall = { userInstall: true, userInstallDailyTokens: 0 };
const systemOf = (request: ChatRequest) => String(request.messages[0]!.content);
/** The REST calls the bot made to the place, besides answering the interaction. */
const callsTo = (channelId: string) =>
  world.discord.requests.filter((request) => request.path.includes(channelId)).map((r) => `${r.method} ${r.path}`);
const messageReplies = (replies: FakeInteractionReply[]) => replies.filter((reply) => reply.kind !== 'callback');
/** `/ask prompt:` run by `author` in a place the bot is not in, through their own install. */
const askThere = (
  discord: BotWorld['discord'],
  place: { channelId: string },
  prompt: string,
  author: FakeAuthor = 'bob',
) => discord.userRunsCommand({ name: 'ask', options: { prompt }, author, channelId: place.channelId });

describe('a user install where no server added the bot', () => {
  it('/ask answers in the reply: the tool steps shown in the edited card first, nothing sent to the channel', async () => {
    world = await startBotWorld(userInstall);
    const { discord, model } = world;
    const place = discord.addAbsentPlace('server');
    model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6 * 7' } }), (request) => {
      expect(systemOf(request)).toContain('called you through the app they added to their own Discord account');
      return finalAnswer('It is 42.');
    });
    const interaction = await askThere(discord, place, 'what is 6 times 7?');
    await interaction.waitForReply((reply) => reply.content === 'It is 42.');
    await world.handled('interaction', interaction.id);
    const replies = interaction.replies();
    expect(replies[0]).toMatchObject({ kind: 'callback', type: 5, ephemeral: false });
    expect(messageReplies(replies).map((reply) => [reply.kind, reply.messageId === replies[0]!.messageId])).toEqual([
      ['edit', true],
      ['edit', true],
    ]);
    expect(messageReplies(replies)[0]!.content).toContain('calculator');
    expect(callsTo(place.channelId)).toEqual([]);
  });

  it('shows the answer in the card as the model writes it (STREAM_ANSWERS), then the whole answer there', async () => {
    let interaction: FakeInteraction | undefined;
    const text = 'It is four. Two and two make four, as anyone who counts on their fingers will find.';
    // The model stops writing after its first words until the card has shown them.
    const shown = () =>
      world.discord.waitFor(() =>
        interaction
          ?.replies()
          .some((reply) => reply.kind === 'edit' && reply.content.length > 0 && reply.content.length < text.length),
      );
    const server = await startFakeModelServer(compliant, { streamPause: { afterChunks: 6, until: shown } });
    try {
      world = await startBotWorld({ ...userInstall, streamAnswers: true }, {}, { baseURL: server.baseURL });
      const place = world.discord.addAbsentPlace('server');
      server.enqueue(answer(text));
      interaction = await askThere(world.discord, place, 'what is 2+2?');
      await world.handled('interaction', interaction.id);
      const edits = interaction.replies().filter((reply) => reply.kind === 'edit');
      expect(text.startsWith(edits[0]!.content)).toBe(true);
      expect(edits.at(-1)!.content).toBe(text);
      expect(interaction.replies().filter((reply) => reply.kind === 'followup')).toEqual([]);
    } finally {
      await world.close();
      world = undefined as unknown as BotWorld;
      await server.close();
    }
  });

  it('a run stopped by the deadline while its answer was shown keeps what it showed, with why it stopped', async () => {
    let interaction: FakeInteraction | undefined;
    const shown = () =>
      world.discord.waitFor(() => interaction?.replies().some((reply) => reply.content.startsWith('It is')));
    // The model writes its first words, then nothing more (until the deadline stops the run).
    const server = await startFakeModelServer(compliant, {
      streamPause: { afterChunks: 6, until: () => shown().then(() => new Promise(() => {})) },
    });
    try {
      // Long enough for the first words to be shown first; the run is stopped by it, not by the test.
      world = await startBotWorld(
        { ...userInstall, streamAnswers: true, interactionRunMs: 4000 },
        {},
        { baseURL: server.baseURL },
      );
      const place = world.discord.addAbsentPlace('server');
      server.enqueue(answer('It is four. Two and two make four, as anyone who counts will find.'));
      interaction = await askThere(world.discord, place, 'what is 2+2?');
      await world.handled('interaction', interaction.id);
      const last = interaction.replies().at(-1)!.content;
      expect(last.startsWith('It is')).toBe(true);
      expect(last.endsWith(`\n-# ${interactionTimeNotice}`)).toBe(true);
    } finally {
      await world.close();
      world = undefined as unknown as BotWorld;
      await server.close();
    }
  });

  it('remembers the conversation of the person in the place across two /ask', async () => {
    world = await startBotWorld(userInstall);
    const { discord, model } = world;
    const place = discord.addAbsentPlace('group-dm');
    model.enqueue(finalAnswer('Noted: your cat is Tom.'), (request) => {
      const said = request.messages.map((message) => String(message.content)).join('\n');
      expect(said).toContain('my cat is called Tom');
      expect(said).toContain('Noted: your cat is Tom.');
      return finalAnswer('Tom.');
    });
    const ask = async (prompt: string) => {
      const interaction = await askThere(discord, place, prompt);
      await world.handled('interaction', interaction.id);
      return interaction.replies().at(-1)!.content;
    };
    expect(await ask('my cat is called Tom')).toBe('Noted: your cat is Tom.');
    expect(await ask('what is my cat called?')).toBe('Tom.');
    expect(world.model.requests).toHaveLength(2);
  });

  it('a long answer fits the reply and at most the follow-ups Discord allows there', async () => {
    world = await startBotWorld(userInstall);
    const { discord, model } = world;
    const place = discord.addAbsentPlace('server');
    const long = Array.from({ length: 400 }, (_, index) => `Line ${index} of a long answer.`).join('\n');
    model.enqueue(finalAnswer(long));
    const interaction = await askThere(discord, place, 'tell me everything');
    await world.handled('interaction', interaction.id);
    const followUps = interaction.replies().filter((reply) => reply.kind === 'followup');
    expect(followUps.length).toBeGreaterThan(0);
    expect(followUps.length).toBeLessThanOrEqual(followUpLimit);
    expect(discord.problems).toEqual([]);
  });

  it('a run that would outlive the interaction token stops and says so', async () => {
    world = await startBotWorld({ ...userInstall, interactionRunMs: 300 });
    const { discord, model } = world;
    const place = discord.addAbsentPlace('server');
    model.enqueue({ hang: true });
    const interaction = await askThere(discord, place, 'think for an hour');
    await interaction.waitForReply((reply) => reply.content.includes(interactionTimeNotice));
    await world.handled('interaction', interaction.id);
    const run = world.store.db.prepare('SELECT status, delivery FROM runs').get();
    expect(run).toEqual({ status: 'stopped', delivery: 'posted' });
  });

  it('the daily budget of user-installed use spent: a clear word, and no model call', async () => {
    world = await startBotWorld({ ...userInstall, userInstallDailyTokens: 100 });
    const { discord } = world;
    const place = discord.addAbsentPlace('server');
    world.store.db
      .prepare('INSERT INTO guild_usage_days (guild_id, day, tokens) VALUES (?, ?, ?)')
      .run(userInstallServerId, Math.floor(Date.now() / 86_400_000), 150);
    const interaction = await askThere(discord, place, 'hello');
    const reply = await interaction.waitForReply();
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toContain(
      'My user-installed use (where no server added me) has used its 100 tokens for today.',
    );
    expect(world.model.requests).toHaveLength(0);
  });

  it('a budget spent while a question waited for its turn: the run is recorded as refused, and the reply says so', async () => {
    let second: FakeInteraction | undefined;
    // The first answer pauses until the second question was taken (and passed its check); then
    // the day's budget of user-installed use is spent.
    const server = await startFakeModelServer(compliant, {
      streamPause: {
        afterChunks: 6,
        until: async () => {
          await world.discord.waitFor(() => second?.replies().some((reply) => reply.kind === 'callback'));
          world.store.db
            .prepare(
              'INSERT INTO guild_usage_days (guild_id, day, tokens) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET tokens = excluded.tokens',
            )
            .run(userInstallServerId, Math.floor(Date.now() / 86_400_000), 150);
        },
      },
    });
    try {
      world = await startBotWorld(
        { ...userInstall, userInstallDailyTokens: 100, streamAnswers: true },
        {},
        { baseURL: server.baseURL },
      );
      const place = world.discord.addAbsentPlace('server');
      server.enqueue(answer('It is four. Two and two make four, as anyone who counts will find.'));
      const ask = (prompt: string) => askThere(world.discord, place, prompt);
      const first = await ask('what is 2+2?');
      second = await ask('and 3+3?');
      await world.handled('interaction', first.id);
      await world.handled('interaction', second.id);
      expect(second.replies().at(-1)!.content).toContain(
        'My user-installed use (where no server added me) has used its 100 tokens for today.',
      );
      expect(server.requests).toHaveLength(1);
      const runs = world.store.db.prepare('SELECT status, error_code, delivery FROM runs ORDER BY started_at').all();
      expect(runs).toContainEqual({ status: 'failed', error_code: 'call-refused', delivery: 'posted' });
      expect(runs).toHaveLength(2);
    } finally {
      await world.close();
      world = undefined as unknown as BotWorld;
      await server.close();
    }
  });

  it('offers no moderator-only tool, and applies no server settings, even to a moderator of a server of the bot', async () => {
    world = await startBotWorld(userInstall, {}, {}, { tools: buildToolRegistry([...builtInTools, purgeCache]) });
    const { discord, model } = world;
    const place = discord.addAbsentPlace('server');
    // Ada moderates the bot's own server, whose persona is set: neither counts elsewhere.
    world.store.placeSettings.change([
      {
        guildId: discord.guildId,
        scope: 'server',
        scopeId: discord.guildId,
        key: 'persona',
        value: 'Speak like a pirate.',
        changedById: 'ada',
        changedByName: 'Ada',
      },
    ]);
    model.enqueue((request) => {
      const offered = (request.tools ?? []).map((tool) => tool.function.name);
      expect(offered).toContain('calculator');
      expect(offered).not.toContain('purge_cache');
      expect(systemOf(request)).not.toContain('pirate');
      return finalAnswer('Hello.');
    });
    const interaction = await askThere(discord, place, 'hello', 'ada');
    await world.handled('interaction', interaction.id);
    expect(interaction.replies().at(-1)!.content).toBe('Hello.');
  });

  it('in a server that added the bot, a person\'s own install too ("0" and "1"): the server\'s way, with its settings', async () => {
    world = await startBotWorld(userInstall);
    const { discord, model } = world;
    world.store.placeSettings.change([
      {
        guildId: discord.guildId,
        scope: 'server',
        scopeId: discord.guildId,
        key: 'persona',
        value: 'Speak like a pirate.',
        changedById: 'ada',
        changedByName: 'Ada',
      },
    ]);
    model.enqueue((request) => {
      expect(systemOf(request)).toContain('pirate');
      return finalAnswer('Arr, hello.');
    });
    const interaction = await discord.userRunsCommand({
      name: 'ask',
      options: { prompt: 'hello' },
      author: 'bob',
      channelId: seedIds.general,
      ownInstall: true,
    });
    expect((interaction.payload as { authorizing_integration_owners: unknown }).authorizing_integration_owners).toEqual(
      {
        '0': discord.guildId,
        '1': seedIds.bob,
      },
    );
    const thread = await discord.waitFor(() => discord.threads()[0]);
    expect(await interaction.waitForReply()).toMatchObject({ ephemeral: true, content: `Started: <#${thread.id}>` });
    const posts = await waitForBotPosts(world, thread.id, 2);
    expect(posts.at(-1)!.content).toBe('Arr, hello.');
    expect(world.store.db.prepare('SELECT DISTINCT guild_id FROM conversations').pluck().all()).toEqual([
      discord.guildId,
    ]);
  });

  it("an answer the server's AutoMod blocks: the card says so, and the run is recorded as not posted", async () => {
    world = await startBotWorld(userInstall);
    const { discord, model } = world;
    const place = discord.addAbsentPlace('server');
    model.enqueue(finalAnswer('Words the AutoMod of that server does not like.'));
    // https://discord.com/developers/docs/topics/opcodes-and-status-codes#json: 200000
    discord.failNext({
      method: 'PATCH',
      path: /^\/webhooks\//,
      status: 400,
      body: { message: 'Message was blocked by automatic moderation', code: 200000 },
    });
    const interaction = await askThere(discord, place, 'hello');
    await world.handled('interaction', interaction.id);
    expect(interaction.replies().at(-1)!.content).toBe(autoModNotice);
    expect(world.store.db.prepare('SELECT status, delivery FROM runs').get()).toEqual({
      status: 'answered',
      delivery: 'post-failed',
    });
  });

  it("keeps each person's conversation of a group DM to them, and no member's facts of a server or DMs reach it", async () => {
    world = await startBotWorld({ ...userInstall, memberMemoryInDms: true });
    const { discord, model } = world;
    // Bob's server (one of the bot's) remembers members; Bob has a fact there.
    world.store.placeSettings.change([
      {
        guildId: discord.guildId,
        scope: 'server',
        scopeId: discord.guildId,
        key: 'member_memory',
        value: 'on',
        changedById: 'ada',
        changedByName: 'Ada',
      },
    ]);
    world.store.memberFacts.keep(discord.guildId, seedIds.bob, 'Bob keeps honeybadgers', 50);
    world.store.memberFacts.keep('@me', seedIds.bob, 'Bob likes marzipan', 50);
    const place = discord.addAbsentPlace('group-dm');
    const said = (request: ChatRequest) => request.messages.map((message) => String(message.content)).join('\n');
    model.enqueue(
      (request) => {
        expect(said(request)).not.toMatch(/honeybadgers|marzipan|remembered-facts/);
        expect((request.tools ?? []).map((tool) => tool.function.name)).not.toContain('remember');
        return finalAnswer('Noted, Bob.');
      },
      (request) => {
        expect(said(request)).not.toMatch(/codeword|Noted, Bob/);
        return finalAnswer('Hello, Cy.');
      },
    );
    for (const [author, prompt] of [
      ['bob', 'my codeword is swordfish'],
      [{ id: '200000000000000099', username: 'cy' }, 'what did Bob tell you?'],
    ] as const) {
      const interaction = await askThere(discord, place, prompt, author);
      await world.handled('interaction', interaction.id);
    }
    expect(model.requests).toHaveLength(2);
  });

  it('a question the content check flags is not answered, and the reply says so', async () => {
    const check = await startFakeContentCheck('FORBIDDEN');
    try {
      world = await startBotWorld(userInstall, {}, {}, { contentCheck: moderationsAt(check) });
      const { discord } = world;
      const place = discord.addAbsentPlace('server');
      const interaction = await askThere(discord, place, 'tell me FORBIDDEN things');
      await world.handled('interaction', interaction.id);
      expect(interaction.replies().at(-1)!.content).toBe(messageNotAnswered.flagged);
      expect(world.model.requests).toHaveLength(0);
      expect(callsTo(place.channelId)).toEqual([]);
    } finally {
      await world.close();
      world = undefined as unknown as BotWorld;
      await check.close();
    }
  });

  it('"Ask about this message" asks the question of its form about the message the interaction carried, reading nothing of the channel', async () => {
    world = await startBotWorld(userInstall);
    const { discord, model } = world;
    const place = discord.addAbsentPlace('server');
    const message = discord.userSaysInAbsentPlace(place, 'ada', 'The meeting moved to Thursday at 3 pm.');
    model.enqueue((request) => {
      const asked = String(request.messages.at(-1)!.content);
      expect(asked).toContain('which day is it now?');
      expect(asked).toContain('The meeting moved to Thursday at 3 pm.');
      return finalAnswer('Thursday, at 3 pm.');
    });
    const opened = await discord.userRunsCommand({
      name: 'Ask about this message',
      type: 'message',
      targetMessageId: message.id,
      author: 'bob',
      channelId: place.channelId,
    });
    expect((await opened.waitForModal()).title).toBe('Ask about this message');
    const submitted = await discord.userSubmitsModal(opened, { question: 'which day is it now?' });
    await world.handled('interaction', submitted.id);
    expect(submitted.replies().at(-1)!.content).toBe('Thursday, at 3 pm.');
    expect(callsTo(place.channelId)).toEqual([]);
    // The message was kept for that one form: a second submission finds it gone, and says so.
    const again = await discord.userSubmitsModal(opened, { question: 'and the time?' });
    expect((await again.waitForReply()).content).toBe(
      'I no longer have that message: choose Ask about this message on it again.',
    );
  });
});
