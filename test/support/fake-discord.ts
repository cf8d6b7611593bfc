/**
 * A fake Discord on 127.0.0.1: REST v10 under /api/v10 and the JSON gateway, in-process, with a
 * seeded guild. The real discord.js client logs in to it:
 *
 *   const fake = await startFakeDiscord();
 *   const client = new Client({ intents: [Guilds, GuildMessages, MessageContent], rest: { api: fake.apiUrl } });
 *   await client.login(fake.token);
 *   …
 *   await client.destroy(); // FIRST, or the client reconnects for ever
 *   await fake.close();     // then: throws if the bot broke Discord's spec or our rules
 *
 * The pieces live in fake-discord/: the world (state), payloads and messages (Discord's JSON),
 * gateway, rest (the one pipeline every request goes through), the routes, threads, faults,
 * application commands and interactions (a user runs a command; the bot answers through REST).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelType, GatewayDispatchEvents } from 'discord.js';
import { CommandStore } from './fake-discord/application-commands.ts';
import { channelRoutes } from './fake-discord/channel-routes.ts';
import {
  addStranger,
  directMessageChannel,
  directMessageRoutes,
  userSaysInDm,
} from './fake-discord/direct-messages.ts';
import { commandRoutes } from './fake-discord/command-routes.ts';
import { Faults } from './fake-discord/faults.ts';
import { FakeGateway } from './fake-discord/gateway.ts';
import { createRole, giveRole, setChannelOverwrites, setRolePermissions } from './fake-discord/guild-roles.ts';
import { interactionRoutes } from './fake-discord/interaction-routes.ts';
import { pressComponent } from './fake-discord/component-interactions.ts';
import { pressMessageButton } from './fake-discord/message-buttons.ts';
import {
  interactionHandle,
  InteractionStore,
  type RunCommandServices,
  runCommand,
  submitModal,
} from './fake-discord/interactions.ts';
import { messageRoutes } from './fake-discord/message-routes.ts';
import { userMessage } from './fake-discord/messages.ts';
import { guildCreatePayload, guildIdsOfShard, readyPayload } from './fake-discord/payloads.ts';
import { defaultEveryonePermissions } from './fake-discord/permissions.ts';
import { restHandler } from './fake-discord/rest.ts';
import type { FakeServices } from './fake-discord/routes.ts';
import { createForumPost, createThread, deleteThread, updateThread } from './fake-discord/threads.ts';
import type { FakeDiscord, FakeDiscordOptions, FakeMessage, RecordedRequest } from './fake-discord/types.ts';
import { Changes } from './fake-discord/wait-for.ts';
import { addAbsentPlace, messageInAbsentPlace } from './fake-discord/user-installs.ts';
import { discordTimestamp, seedIds, World } from './fake-discord/world.ts';

export type * from './fake-discord/types.ts';
export { defaultBotPermissions, defaultEveryonePermissions } from './fake-discord/permissions.ts';

/** A token in Discord's shape (base64 of the bot id, a timestamp part, an HMAC part). */
const botToken = `${Buffer.from(seedIds.bot).toString('base64')}.GfAkE0.${'x'.repeat(38)}`;

/** Starts a fake Discord on a free port. See `FakeDiscord` for the API and the teardown order. */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = options.token ?? botToken;
  const world = new World();
  const changes = new Changes();
  const problems: string[] = [];
  const requests: RecordedRequest[] = [];
  const faults = new Faults();
  let latencyMs = options.latencyMs ?? 0;
  let holdResponsesMs = 0;
  const changed = () => changes.notify();
  const problem = (message: string) => {
    problems.push(message);
    changed();
  };

  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
  const messageContentAllowed = !options.disallowMessageContent;

  const gateway = new FakeGateway({
    token,
    botId: seedIds.bot,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    disallowMessageContent: options.disallowMessageContent ?? false,
    ready: (sessionId, shard) => readyPayload(world, sessionId, gatewayUrl, messageContentAllowed, shard),
    initialDispatches: (shard) =>
      guildIdsOfShard(world, shard).map((id) => ({
        t: GatewayDispatchEvents.GuildCreate,
        d: guildCreatePayload(world, id),
      })),
    problem,
    changed,
  });
  const services: FakeServices = {
    world,
    gateway,
    baseUrl,
    gatewayUrl,
    messageContentAllowed,
    problem,
    recommendedShards: options.recommendedShards ?? 1,
    maxConcurrency: options.maxConcurrency ?? 1,
  };
  const commands = new CommandStore(world);
  const interactions = new InteractionStore({ deadlineMs: options.interactionDeadlineMs ?? 3000, problem });
  server.on(
    'request',
    restHandler({
      world,
      routes: [
        ...messageRoutes(services),
        ...channelRoutes(services),
        ...commandRoutes(services, commands),
        ...interactionRoutes(services, interactions),
        ...directMessageRoutes(world),
      ],
      token,
      faults,
      requests,
      latencyMs: () => latencyMs,
      holdResponsesMs: () => holdResponsesMs,
      problem,
      changed,
    }),
  );
  server.on('upgrade', (request, socket, head) => {
    if (new URL(request.url ?? '/', baseUrl).pathname !== '/gateway') return void socket.destroy();
    gateway.upgrade(request, socket, head);
  });

  const describe = () => {
    const recent = requests
      .slice(-8)
      .map((request) => `  ${request.method} ${request.path} → ${request.status ?? 'pending'}`);
    return `recent requests:\n${recent.join('\n') || '  (none)'}\nproblems: ${problems.length === 0 ? 'none' : `\n  ${problems.join('\n  ')}`}`;
  };
  let closed = false;
  // What the interactions (commands, forms, buttons) work with.
  const interactionServices: RunCommandServices = {
    world,
    fileBaseUrl: baseUrl,
    gateway,
    commands,
    interactions,
    waitFor: (check, waitOptions) => changes.waitFor(check, waitOptions, describe),
  };

  return {
    apiUrl: `${baseUrl}/api`,
    cdnUrl: baseUrl,
    token,
    gatewayUrl,
    botUser: { id: world.botUser.id, username: world.botUser.username },
    guildId: world.guildId,
    channels: { general: seedIds.general, random: seedIds.random },
    users: { ada: seedIds.ada, bob: seedIds.bob },
    roles: { everyone: seedIds.guild, bot: seedIds.botRole, moderator: seedIds.moderatorRole },
    get latencyMs() {
      return latencyMs;
    },
    get holdResponsesMs() {
      return holdResponsesMs;
    },
    set holdResponsesMs(value: number) {
      holdResponsesMs = value;
    },
    set latencyMs(value: number) {
      latencyMs = value;
    },
    requests,
    filesServed: world.filesServed,
    gatewayPayloads: gateway.payloads,
    dispatches: gateway.dispatches,
    problems,
    gatewaySessions: () => gateway.sessionShards(),
    addGuild: (name, guildOptions = {}) => world.addGuild(name, guildOptions.shard),

    async userSays(input) {
      const message = userMessage(world, baseUrl, input);
      world.storeMessage(message);
      await gateway.dispatch(GatewayDispatchEvents.MessageCreate, message);
      return message;
    },
    userSaysInDm: (input) => userSaysInDm(world, gateway, baseUrl, input),
    dmChannelOf: (author) => directMessageChannel(world, world.author(author)).id,
    addStranger: (input) => addStranger(world, input).id,
    addAbsentPlace: (kind) => addAbsentPlace(world, kind),
    userSaysInAbsentPlace: (place, author, content) =>
      messageInAbsentPlace(world, place, world.author(author), content),
    async userEdits(channelId, messageId, content) {
      const message = world.requireMessage(channelId, messageId);
      message.content = content;
      message.edited_timestamp = discordTimestamp();
      await gateway.dispatch(GatewayDispatchEvents.MessageUpdate, message);
      return message;
    },
    async messageChanges(channelId, messageId, change) {
      const message = world.requireMessage(channelId, messageId);
      if (change.embeds) message.embeds = change.embeds as FakeMessage['embeds'];
      if (change.removeAttachments) {
        message.attachments = message.attachments.filter((file) => !change.removeAttachments!.includes(file.filename));
        message.edited_timestamp = discordTimestamp();
      }
      await gateway.dispatch(GatewayDispatchEvents.MessageUpdate, message);
      return message;
    },
    pinMessage(channelId, messageId) {
      world.requireMessage(channelId, messageId).pinned = true;
      const pins = world.pins.get(channelId) ?? [];
      // Pinned a millisecond apart at least, so that `before` pages them apart as Discord's clock would.
      const last = pins[0] ? Date.parse(pins[0].pinnedAt) : 0;
      pins.unshift({ messageId, pinnedAt: new Date(Math.max(Date.now(), last + 1)).toISOString() });
      world.pins.set(channelId, pins);
    },
    async userDeletes(channelId, messageId) {
      const message = world.removeMessage(channelId, messageId);
      await gateway.dispatch(GatewayDispatchEvents.MessageDelete, {
        id: message.id,
        channel_id: channelId,
        // A DM's deletion names no server.
        ...(message.guild_id === undefined ? {} : { guild_id: world.guildId }),
      });
    },
    async bulkDelete(channelId, messageIds) {
      for (const id of messageIds) world.removeMessage(channelId, id);
      await gateway.dispatch(GatewayDispatchEvents.MessageDeleteBulk, {
        ids: [...messageIds],
        channel_id: channelId,
        guild_id: world.guildId,
      });
    },
    async createVoiceChannel(name) {
      const id = world.nextId();
      world.addVoiceChannel(id, name);
      await gateway.dispatch(GatewayDispatchEvents.ChannelCreate, world.channels.get(id));
      return id;
    },
    async createForum(name, tags) {
      const id = world.nextId();
      world.addForumChannel(id, name, tags);
      await gateway.dispatch(GatewayDispatchEvents.ChannelCreate, world.channels.get(id));
      return id;
    },
    async userStartsForumPost({ forumId, title, tags, ...input }) {
      const author = world.author(input.author);
      const thread = await createForumPost(world, gateway, { forumId, ownerId: author.id, title, tags });
      // The post's first message has the thread's id.
      const message = { ...userMessage(world, baseUrl, { ...input, channelId: thread.id }), id: thread.id };
      world.storeMessage(message);
      await gateway.dispatch(GatewayDispatchEvents.MessageCreate, message);
      return { thread, message };
    },
    async createChannel(name) {
      const id = world.nextId();
      world.addTextChannel(id, name, world.textChannels().length, null);
      await gateway.dispatch(GatewayDispatchEvents.ChannelCreate, world.channels.get(id));
      return id;
    },
    async deleteChannel(channelId) {
      const channel = world.channels.get(channelId);
      if (!channel) throw new Error(`fake Discord: no channel ${channelId}`);
      world.channels.delete(channelId);
      // Its threads go with it, without a THREAD_DELETE (https://github.com/discordjs/discord.js/pull/10883).
      for (const thread of world.threads()) if (thread.parent_id === channelId) world.channels.delete(thread.id);
      await gateway.dispatch(GatewayDispatchEvents.ChannelDelete, channel);
    },
    async createThread(channelId, name, ownerId, threadOptions = {}) {
      if (!world.users.has(ownerId)) world.author({ id: ownerId, username: `user-${ownerId}` });
      return createThread(world, gateway, {
        parentId: channelId,
        name,
        ownerId,
        type: ChannelType.PublicThread,
        ...threadOptions,
      });
    },
    async deleteThread(threadId) {
      await deleteThread(world, gateway, threadId);
    },
    updateThread: (threadId, changes) => updateThread(gateway, world.requireThread(threadId), changes),
    userRunsCommand: (input) => runCommand(interactionServices, input),
    userPressesMessageButton: (input) => pressMessageButton(interactionServices, input),
    userSubmitsModal: (opened, values) => submitModal(interactionServices, opened, values),
    userPressesComponent: (input) =>
      pressComponent(interactionServices, input, (record) => interactionHandle(record, interactionServices.waitFor)),
    registeredCommands: (scope = {}) => commands.list(scope.guildId),
    giveRole: (userId, roleId) => giveRole(world, gateway, userId, roleId),
    createRole: (input) => createRole(world, gateway, input),
    setRolePermissions: (roleId, bits) => setRolePermissions(world, gateway, roleId, bits),
    setChannelOverwrites: (channelId, overwrites) => setChannelOverwrites(world, gateway, channelId, overwrites),

    messages: (channelId) => [...(world.messagesByChannel.get(channelId) ?? [])],
    // One channel's are read from its own list, not picked out of every channel's: a bench's wait
    // over a thousand threads asks for each thread's on every change of the fake.
    botMessages: (channelId) =>
      (channelId === undefined
        ? [...world.messagesByChannel.values()].flat()
        : [...(world.messagesByChannel.get(channelId) ?? [])]
      )
        .filter((message) => message.author.id === world.botUser.id)
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)),
    threads: () => world.threads(),
    channel: (channelId) => world.channels.get(channelId),
    waitFor: (check, waitOptions = {}) => changes.waitFor(check, waitOptions, describe),

    failNext: (rule) => faults.failNext(rule),
    holdNext: (rule) => faults.holdNext(rule),
    rateLimitNext: (rule) => faults.rateLimitNext(rule),
    forgetNonces: () => world.nonces.clear(),
    dropGateway: (dropOptions = {}) => gateway.drop(dropOptions.code ?? 4000),
    setBotPermissions(bits) {
      const everyone = world.roles.get(seedIds.guild)!;
      const botRole = world.roles.get(seedIds.botRole)!;
      everyone.permissions = (defaultEveryonePermissions & bits).toString();
      botRole.permissions = bits.toString();
      for (const role of [everyone, botRole])
        void gateway.dispatch(GatewayDispatchEvents.GuildRoleUpdate, { guild_id: world.guildId, role });
    },
    takeProblems: () => problems.splice(0),

    async close() {
      if (closed) return;
      closed = true;
      interactions.close();
      // A client that is still connected reconnects for ever once the port is gone; give a
      // just-destroyed client a moment to finish its closing handshake before judging.
      for (let waited = 0; gateway.openSockets() > 0 && waited < 200; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      if (gateway.openSockets() > 0) {
        problems.push(
          'close(): a gateway connection was still open; destroy the discord.js client (await client.destroy()) before closing the fake',
        );
      }
      problems.push(...faults.leftOver());
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (problems.length > 0) throw new Error(`fake Discord:\n  ${problems.join('\n  ')}`);
    },
  };
}
