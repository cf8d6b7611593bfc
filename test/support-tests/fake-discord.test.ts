/**
 * The fake Discord against the real discord.js client: if these pass, tests of the bot can trust
 * that what works against the fake is what discord.js does against Discord.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  ChannelType,
  Client,
  DiscordAPIError,
  DiscordjsError,
  Events,
  GatewayIntentBits,
  MessageFlags,
  PermissionFlagsBits,
  RESTEvents,
  type ClientOptions,
  type Message,
  type RateLimitData,
  type TextChannel,
} from 'discord.js';
import { defaultBotPermissions, type FakeDiscordOptions } from '../support/fake-discord.ts';
import { useDiscordClientWorld } from '../support/discord-client-world.ts';

const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent];
const noPings = { parse: [], repliedUser: false };

const world = useDiscordClientWorld({ intents });

async function loggedIn(options: FakeDiscordOptions = {}, clientOptions: Partial<ClientOptions> = {}) {
  const { fake, client } = await world.login(options, clientOptions);
  const general = client.channels.cache.get(fake.channels.general) as TextChannel;
  return { fake, client, general };
}

function nextMessage(bot: Client, filter: (message: Message) => boolean = () => true): Promise<Message> {
  return new Promise((resolve) => {
    const listener = (message: Message) => {
      if (!filter(message)) return;
      bot.off(Events.MessageCreate, listener);
      resolve(message);
    };
    bot.on(Events.MessageCreate, listener);
  });
}

describe('fake Discord with the real discord.js client', () => {
  it('logs in and is ready at once, with the seeded guild, its roles and the bot permissions', async () => {
    const started = performance.now();
    const { fake, client, general } = await loggedIn();
    expect(performance.now() - started).toBeLessThan(2000); // a missing GUILD_CREATE costs 15 s

    const guild = client.guilds.cache.get(fake.guildId)!;
    expect(guild.name).toBe('Test Server');
    expect(guild.roles.everyone.id).toBe(fake.guildId);
    expect(guild.roles.botRoleFor(client.user!)?.id).toBe(fake.roles.bot);
    expect(general.name).toBe('general');
    expect(client.channels.cache.get(fake.channels.random)?.type).toBe(ChannelType.GuildText);
    const permissions = general.permissionsFor(client.user!)!;
    expect(
      permissions.has([
        PermissionFlagsBits.ViewChannel,
        PermissionFlagsBits.SendMessages,
        PermissionFlagsBits.CreatePublicThreads,
      ]),
    ).toBe(true);
    expect(permissions.has(PermissionFlagsBits.Administrator)).toBe(false);
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /gateway/bot']);
  });

  it('delivers a user message with its mentions, author, member and a fetchable attachment', async () => {
    const { fake, client } = await loggedIn();
    const received = nextMessage(client);
    await fake.userSays({
      channelId: fake.channels.general,
      author: 'ada',
      content: `<@${fake.botUser.id}> what is in this file?`,
      mentions: [fake.botUser.id],
      attachments: [{ filename: 'notes.txt', contentType: 'text/plain', body: 'hello file' }],
    });
    const message = await received;

    expect(message.content).toBe(`<@${fake.botUser.id}> what is in this file?`);
    expect(message.author.username).toBe('ada');
    expect(message.member?.roles.cache.has(fake.roles.moderator)).toBe(true);
    expect(message.mentions.has(client.user!)).toBe(true);
    expect(message.mentions.everyone).toBe(false);
    const attachment = message.attachments.first()!;
    expect(attachment).toMatchObject({ name: 'notes.txt', contentType: 'text/plain', size: 10 });
    const download = await fetch(attachment.url);
    expect(download.headers.get('content-type')).toBe('text/plain');
    expect(await download.text()).toBe('hello file');
  });

  it('starts a thread from a message, and a message sent in it lands in the thread', async () => {
    const { fake, client } = await loggedIn();
    const received = nextMessage(client);
    await fake.userSays({ channelId: fake.channels.general, author: 'bob', content: 'question' });
    const question = await received;

    const thread = await question.startThread({ name: 'About a question' });
    expect(thread).not.toBeNull();
    expect(thread.parentId).toBe(fake.channels.general);
    expect(thread.id).toBe(question.id); // as on Discord
    expect(thread.ownerId).toBe(fake.botUser.id);
    expect(fake.threads()).toMatchObject([
      { id: thread.id, type: ChannelType.PublicThread, parent_id: fake.channels.general, name: 'About a question' },
    ]);

    const sent = await thread.send({ content: 'thinking…' });
    expect(fake.messages(thread.id).map((message) => message.content)).toEqual(['thinking…']);
    expect(fake.botMessages(thread.id)[0]).toMatchObject({ id: sent.id, author: { id: fake.botUser.id, bot: true } });
    expect(fake.dispatches.map((dispatch) => dispatch.t)).toContain('THREAD_CREATE');
  });

  it('accepts a reply with allowed_mentions and resolves no pings', async () => {
    const { fake, client } = await loggedIn();
    const received = nextMessage(client);
    await fake.userSays({ channelId: fake.channels.general, author: 'ada', content: 'hi bot' });
    const question = await received;

    const reply = await question.reply({
      content: `hello <@${fake.users.bob}> and @everyone`,
      allowedMentions: noPings,
      flags: MessageFlags.SuppressEmbeds,
    });
    expect(reply.reference?.messageId).toBe(question.id);
    const stored = fake.botMessages(fake.channels.general).at(-1)!;
    expect(stored).toMatchObject({
      type: 19,
      mentions: [],
      mention_everyone: false,
      flags: MessageFlags.SuppressEmbeds,
    });
    expect(stored.message_reference?.message_id).toBe(question.id);
    expect(fake.problems).toEqual([]);
  });

  it('posts a reply to a deleted message as a plain message when failIfNotExists is false', async () => {
    const { fake, general } = await loggedIn();
    const gone = await fake.userSays({ channelId: fake.channels.general, author: 'ada', content: 'soon gone' });
    await fake.userDeletes(fake.channels.general, gone.id);
    await expect(
      general.send({ content: 'strict', reply: { messageReference: gone.id, failIfNotExists: true } }),
    ).rejects.toMatchObject({ code: 50035 });
    await general.send({ content: 'lenient', reply: { messageReference: gone.id, failIfNotExists: false } });
    expect(fake.botMessages().map((message) => [message.content, message.type, message.message_reference])).toEqual([
      ['lenient', 0, undefined],
    ]);
  });

  it('refuses content over 2,000 characters as Discord does, and records the problem', async () => {
    const { fake, general } = await loggedIn();
    const error = await general.send({ content: 'x'.repeat(2001) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(50035);
    expect(fake.takeProblems()).toEqual([expect.stringContaining('content is 2001 characters')]);
    expect(fake.messages(fake.channels.general)).toEqual([]);
  });

  it('records a bot message without allowed_mentions, or one that may ping @everyone or roles', async () => {
    const { fake, general } = await loggedIn({}, { allowedMentions: undefined });
    await general.send({ content: 'no allowed_mentions' });
    await general.send({ content: 'everyone', allowedMentions: { parse: ['everyone', 'roles'] } });
    expect(fake.takeProblems()).toEqual([
      expect.stringContaining('without allowed_mentions'),
      expect.stringContaining('"everyone"'),
      expect.stringContaining('"roles"'),
    ]);
  });

  it('returns the first message again for a repeated nonce with enforce_nonce', async () => {
    const { fake, general } = await loggedIn();
    const first = await general.send({ content: 'only once', nonce: 'nonce-1', enforceNonce: true });
    const second = await general.send({ content: 'only once', nonce: 'nonce-1', enforceNonce: true });
    expect(second.id).toBe(first.id);
    expect(fake.botMessages(fake.channels.general)).toHaveLength(1);
    expect(fake.requests.filter((request) => request.method === 'POST')).toHaveLength(2);
  });

  it('fails login with a bad token as TokenInvalid', async () => {
    const server = await world.startFake();
    const bot = world.newClient(server);
    const error = await bot.login('MTIz.bad.token').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscordjsError);
    expect(error).toMatchObject({ code: 'TokenInvalid', message: 'An invalid token was provided.' });
    expect(server.requests[0]).toMatchObject({ path: '/gateway/bot', status: 401 });
  });

  it('closes the gateway with 4014 when MessageContent is asked for but not allowed', async () => {
    const server = await world.startFake({ disallowMessageContent: true });
    const bot = world.newClient(server);
    const disconnects: number[] = [];
    bot.on(Events.ShardDisconnect, (event) => disconnects.push(event.code));
    const error = await bot.login(server.token).catch((caught: unknown) => caught);
    // @discordjs/ws's plain Error, not discord.js's DiscordjsError (ErrorCodes.DisallowedIntents).
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(DiscordjsError);
    expect((error as Error).message).toBe('Used disallowed intents');
    expect(disconnects).toEqual([4014]);
    expect(bot.isReady()).toBe(false);
  });

  it('resumes after a dropped connection and replays what was missed', async () => {
    const { fake, client } = await loggedIn();
    const resumed = once(client, Events.ShardResume);
    fake.dropGateway();
    await fake.userSays({ channelId: fake.channels.general, author: 'bob', content: 'said while the bot was away' });
    const received = nextMessage(client);
    await resumed;
    expect((await received).content).toBe('said while the bot was away');
    expect(fake.gatewayPayloads.filter((payload) => payload.op === 2)).toHaveLength(1);
    expect(fake.gatewayPayloads.filter((payload) => payload.op === 6)).toHaveLength(1);

    const after = nextMessage(client);
    await fake.userSays({ channelId: fake.channels.general, author: 'ada', content: 'and after' });
    expect((await after).content).toBe('and after');
  });

  it('makes discord.js wait and retry after a 429', async () => {
    const { fake, client, general } = await loggedIn();
    const limits: RateLimitData[] = [];
    client.rest.on(RESTEvents.RateLimited, (data) => limits.push(data));
    fake.rateLimitNext({ method: 'POST', path: /^\/channels\/\d+\/messages$/, retryAfterSeconds: 0.3 });
    const started = performance.now();
    await general.send({ content: 'after a wait' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(fake.requests.filter((request) => request.method === 'POST').map((request) => request.status)).toEqual([
      429, 200,
    ]);
    expect(limits).toHaveLength(1);
    expect(fake.botMessages()).toHaveLength(1);
  });

  it('makes discord.js wait out a global 429 as well', async () => {
    const { fake, general } = await loggedIn();
    fake.rateLimitNext({ method: 'POST', path: /\/messages$/, retryAfterSeconds: 0.2, global: true });
    const started = performance.now();
    await general.send({ content: 'after a global wait' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    const limited = fake.requests.find((request) => request.status === 429)!;
    expect(limited.path).toBe(`/channels/${fake.channels.general}/messages`);
  });

  it('retries a 500 from failNext, and surfaces a 4xx as DiscordAPIError', async () => {
    const { fake, general } = await loggedIn();
    fake.failNext({ method: 'POST', path: /\/messages$/, status: 500 });
    await general.send({ content: 'after a 500' });
    expect(fake.requests.map((request) => request.status)).toEqual([200, 500, 200]);

    fake.failNext({
      method: 'POST',
      path: /\/messages$/,
      status: 403,
      body: { message: 'Missing Access', code: 50001 },
    });
    await expect(general.send({ content: 'refused' })).rejects.toMatchObject({ status: 403, code: 50001 });
    expect(fake.botMessages().map((message) => message.content)).toEqual(['after a 500']);
  });
});

describe('fake Discord: users, threads and history', () => {
  it('dispatches a user edit, delete, a user-made thread with a mention in it, and its deletion', async () => {
    const { fake, client } = await loggedIn();
    const created = nextMessage(client);
    const original = await fake.userSays({ channelId: fake.channels.general, author: 'ada', content: 'frist' });
    await created;

    const updated = once(client, Events.MessageUpdate);
    await fake.userEdits(fake.channels.general, original.id, 'first');
    expect((await updated)[1].content).toBe('first');
    const deleted = once(client, Events.MessageDelete);
    await fake.userDeletes(fake.channels.general, original.id);
    expect((await deleted)[0].id).toBe(original.id);

    const threadCreated = once(client, Events.ThreadCreate);
    const thread = await fake.createThread(fake.channels.general, 'Bob asks', fake.users.bob);
    const [clientThread, newlyCreated] = await threadCreated;
    expect([clientThread.id, clientThread.parentId, clientThread.ownerId, newlyCreated]).toEqual([
      thread.id,
      fake.channels.general,
      fake.users.bob,
      true,
    ]);
    // Like Discord, a thread started without a message leaves a "started a thread" message (type 18).
    expect(fake.messages(fake.channels.general).map((message) => [message.type, message.content])).toEqual([
      [18, 'Bob asks'],
    ]);

    const inThread = nextMessage(client, (message) => message.channelId === thread.id);
    await fake.userSays({
      channelId: thread.id,
      author: 'bob',
      content: `<@${fake.botUser.id}> help`,
      mentions: [fake.botUser.id],
    });
    const mention = await inThread;
    expect(mention.channel.isThread()).toBe(true);
    expect(mention.mentions.users.has(fake.botUser.id)).toBe(true);

    const threadDeleted = once(client, Events.ThreadDelete);
    await fake.deleteThread(thread.id);
    expect((await threadDeleted)[0].id).toBe(thread.id);
    expect(fake.threads()).toEqual([]);
  });

  it('pages history newest first with before, after and limit', async () => {
    const { fake, general } = await loggedIn();
    const said = [];
    for (const content of ['one', 'two', 'three', 'four'])
      said.push(await fake.userSays({ channelId: fake.channels.general, author: 'bob', content }));
    const contents = (messages: Iterable<Message>) => [...messages].map((message) => message.content);

    expect(contents((await general.messages.fetch({ limit: 3, cache: false })).values())).toEqual([
      'four',
      'three',
      'two',
    ]);
    expect(contents((await general.messages.fetch({ before: said[2]!.id, cache: false })).values())).toEqual([
      'two',
      'one',
    ]);
    // `after` gives the messages right after the id (not the newest ones), still newest first.
    expect(contents((await general.messages.fetch({ after: said[0]!.id, limit: 2, cache: false })).values())).toEqual([
      'three',
      'two',
    ]);
  });

  it('archives and locks a thread, and a message reopens an archived one', async () => {
    const { fake, general } = await loggedIn();
    const thread = await general.threads.create({ name: 'Without a message', type: ChannelType.PublicThread });
    expect(fake.channel(thread.id)).toMatchObject({ type: ChannelType.PublicThread, owner_id: fake.botUser.id });

    await thread.setLocked(true);
    await thread.setArchived(true);
    expect(fake.channel(thread.id)).toMatchObject({ thread_metadata: { archived: true, locked: true } });
    await thread.send({ content: 'reopened' }); // the bot has ManageThreads
    expect(fake.channel(thread.id)).toMatchObject({ thread_metadata: { archived: false } });
  });

  it('serves files the bot uploads', async () => {
    const { fake, general } = await loggedIn();
    await general.send({ content: 'the log', files: [{ attachment: Buffer.from('{"ok":true}'), name: 'log.json' }] });
    const [attachment] = fake.botMessages(fake.channels.general)[0]!.attachments;
    expect(attachment).toMatchObject({ filename: 'log.json', size: 11 });
    expect(await (await fetch(attachment!.url)).text()).toBe('{"ok":true}');
  });
});

describe('fake Discord: permissions, intents and harness', () => {
  it('takes permissions away: discord.js sees it, and Discord refuses with 50013', async () => {
    const { fake, client, general } = await loggedIn();
    const updated = once(client, Events.GuildRoleUpdate);
    fake.setBotPermissions(defaultBotPermissions & ~PermissionFlagsBits.SendMessages);
    await updated;
    expect(general.permissionsFor(client.user!)!.has(PermissionFlagsBits.SendMessages)).toBe(false);
    await expect(general.send({ content: 'hello?' })).rejects.toMatchObject({ status: 403, code: 50013 });
  });

  it('blanks message text without the MessageContent intent, unless the bot is mentioned', async () => {
    const { fake, client } = await loggedIn(
      {},
      { intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] },
    );
    const plain = nextMessage(client);
    await fake.userSays({ channelId: fake.channels.general, author: 'ada', content: 'secret' });
    expect((await plain).content).toBe('');
    const mention = nextMessage(client);
    await fake.userSays({
      channelId: fake.channels.general,
      author: 'ada',
      content: `<@${fake.botUser.id}> hi`,
      mentions: [fake.botUser.id],
    });
    expect((await mention).content).toBe(`<@${fake.botUser.id}> hi`);
  });

  it('waitFor resolves on a state change and times out with what it waited for', async () => {
    const { fake, general } = await loggedIn();
    const waiting = fake.waitFor(() => fake.botMessages()[0]?.content);
    await general.send({ content: 'awaited' });
    expect(await waiting).toBe('awaited');
    await expect(fake.waitFor(() => false, { timeoutMs: 30, what: 'nothing' })).rejects.toThrow(
      /waitFor nothing timed out after 30 ms[\s\S]*POST \/channels/,
    );
  });

  it('reports a client still connected at close(), and never hangs', async () => {
    const { fake: server, client: bot } = await loggedIn();
    await expect(server.close()).rejects.toThrow(/destroy the discord.js client/);
    await bot.destroy();
    await server.close(); // twice is fine
  });
});
