/**
 * The bot's start: the composition of the Discord side. `startBot` connects, builds the services
 * once (bot-services.ts), and hands each gateway event to its stage (gateway-events.ts): messages to
 * the inbound router (inbound/), whose queues are consumed by runs/answer-new-messages.ts; interactions to the
 * command router (interactions/). Before new messages, it queues what the last process left undone
 * and catches up on what it missed (inbound/recovery.ts).
 */
import { type Channel, Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import type { DiscordSettings } from '../settings/config-shape.ts';
import type { ConversationQueues } from '../conversation/conversation-queues.ts';
import type { QueuedWork } from '../conversation/queued-work.ts';
import { placeChoice } from '../place-settings/place-choice.ts';
import { restRequestsPerSecond } from '../shards/shard-plan.ts';
import type { BotParts, BotServices } from './bot-services.ts';
import { explainLoginError } from './discord-errors.ts';
import { type HandledEvent, routeGatewayEvents } from './gateway-events.ts';
import { discordCdnOrigins } from './inbound/incoming-images.ts';
import { MessageRouter } from './inbound/message-router.ts';
import { catchUp, queueUnfinishedWork, recentConversations, watchChannels } from './inbound/recovery.ts';
import type { CommandDefinition, CommandSetup } from './interactions/command-context.ts';
import { commandRouter } from './interactions/command-router.ts';
import { registerCommands } from './interactions/command-sync.ts';
import { toolSubcommands } from './interactions/tool-options.ts';
import { inviteUrl, userInstallUrl } from './invite.ts';
import { type Scheduler, startScheduler } from './outbound/scheduler.ts';
import { noPings } from './outbound/send.ts';

export type { HandledEvent } from './gateway-events.ts';

export interface BotDependencies {
  /** What the bot is made of (src/app/bot-dependencies.ts), Discord's settings with the token. */
  parts: BotParts & { discord: DiscordSettings & { token: string } };
  /** Builds the services from the parts once the client is ready: src/app/bot-services.ts, the one place the bot is wired. */
  services: (client: Client<true>, shutdown: AbortSignal) => BotServices;
  /** The slash and context-menu commands (commands/index.ts). */
  commands: readonly CommandDefinition[];
  /** How often due schedules (routines and members' reminders) are looked for (tests make it long, and tick). */
  schedulerIntervalMs?: number;
  /** Images: whether they are taken in (some model sees them) and the largest taken (IMAGE_MAX_MB). */
  images: { vision: boolean; maxBytes: number };
  /**
   * The shards this process runs (under a shard manager), or null: all of them, in one process. The
   * slash commands are registered by the process that runs shard 0 only.
   */
  shard?: { ids: number[]; count: number } | null;
  /** Told once each gateway event's handler has settled, whether it succeeded or failed (tests wait on it). */
  onHandled?: (event: HandledEvent) => void;
}

export interface Bot {
  client: Client<true>;
  queues: ConversationQueues<QueuedWork>;
  /**
   * The scheduler: one loop for scheduled runs and members' reminders (tests run a pass with
   * `tick()` and wait for what it did).
   */
  scheduler: Scheduler;
  /**
   * Stops taking messages, lets runs in flight finish for up to `graceMs`, then aborts the rest
   * (they are resumed at the next start), and disconnects.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** Connects to Discord and answers in threads until stopped. Resolves once the bot is ready. */
export async function startBot(deps: BotDependencies): Promise<Bot> {
  const { logger, discord } = deps.parts;
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      // Asked for only when DMs are on (ALLOW_DMS): off, Discord sends the bot none at all.
      ...(discord.allowDms ? [GatewayIntentBits.DirectMessages] : []),
    ],
    // Partials.Channel is what lets a DM on a DM channel not yet cached through: "This is required to
    // receive direct messages!" (discord.js src/util/Partials.js; https://discordjs.guide/popular-topics/partials).
    // It was on before DMs for uncached threads, so it stays on whatever ALLOW_DMS says.
    partials: [Partials.Message, Partials.Channel],
    rest: {
      api: discord.apiUrl,
      globalRequestsPerSecond: deps.shard ? restRequestsPerSecond(deps.shard.ids.length, deps.shard.count) : 50,
    },
    allowedMentions: noPings,
  });
  const watch = (channels: Iterable<Channel>) => watchChannels(deps.parts.store, discord, logger, channels);
  // In the ready listener itself: discord.js holds messages back until ready, so every channel's
  // lastMessageId is still the one GUILD_CREATE reported (discord.js src/client/websocket/WebSocketManager.js,
  // handlePacket: MESSAGE_CREATE and the like wait in packetQueue until ready).
  const ready = new Promise<Client<true>>((resolve) =>
    client.once(Events.ClientReady, (readyClient) => {
      watch(readyClient.channels.cache.values());
      resolve(readyClient);
    }),
  );
  client.on(Events.GuildCreate, (guild) => watch(guild.channels.cache.values()));
  client.on(Events.GuildAvailable, (guild) => watch(guild.channels.cache.values()));
  client.on(Events.ChannelCreate, (channel) => watch([channel]));
  try {
    await client.login(discord.token);
  } catch (error) {
    await client.destroy();
    throw explainLoginError(error);
  }
  const shutdown = new AbortController();
  const services = deps.services(await ready, shutdown.signal);
  return listen(deps, services, shutdown, watch);
}

/** What the commands are built from: the tools, the moderator roles and the models on offer. */
function commandSetup(services: BotServices): CommandSetup {
  const toolCommands = toolSubcommands(services.tools, services.toolServers);
  for (const { tool, reason } of toolCommands.leftOut) services.logger.warn({ tool, reason }, 'tool left out of /tool');
  // Discord reads where a command may be installed on global commands only (docs/user-install.md).
  if (services.discord.userInstall && services.discord.commandGuildId !== null)
    services.logger.warn(
      { guildId: services.discord.commandGuildId },
      'USER_INSTALL is on, but DISCORD_GUILD_ID registers the commands in one server: nobody can install them to their account',
    );
  return {
    tools: services.tools,
    toolServers: services.toolServers,
    toolSubcommands: toolCommands,
    moderatorRoleIds: services.discord.moderatorRoleIds,
    modelListings: services.models.entries,
    allowDms: services.discord.allowDms,
    userInstall: services.discord.userInstall ?? false,
  };
}

/**
 * Routes the gateway's events to their stages, registers the commands, and catches up on what was
 * left undone and missed, before any new message is handled.
 */
async function listen(
  deps: BotDependencies,
  services: BotServices,
  shutdown: AbortController,
  watch: (channels: Iterable<Channel>) => void,
): Promise<Bot> {
  const { client, store, logger, queues } = services;
  const router = new MessageRouter({
    ...services,
    images: { ...deps.images, origins: services.discord.cdnOrigin ? [services.discord.cdnOrigin] : discordCdnOrigins },
    seesImagesIn: (conversation) => placeChoice(services, conversation).seesImages,
  });
  const setup = commandSetup(services);
  // Before any new message is handled: first what was left undone, then what was missed.
  const conversations = recentConversations(store);
  const unfinished = queueUnfinishedWork(store, services.lifecycle, queues, conversations);
  const caughtUp = catchUp(store, router, logger, conversations);
  routeGatewayEvents(client, {
    router,
    onCommand: services.inputRequests.routeInteractions(
      services.confirmations.routeButtons(commandRouter(deps.commands, { ...services, ...setup })),
    ),
    // A new gateway session (one that could not resume) may have missed messages and channels.
    onNewSession: async () => {
      watch(client.channels.cache.values());
      await catchUp(store, router, logger);
    },
    logger,
    onHandled: deps.onHandled,
  });
  // Registered once listening: a command used meanwhile is answered by the definitions we have.
  // Once for the whole bot: by the process of shard 0 (the commands are the application's, not a shard's).
  if (!deps.shard || deps.shard.ids.includes(0))
    await registerCommands({
      rest: client.rest,
      applicationId: client.application.id,
      guildId: services.discord.commandGuildId,
      wanted: deps.commands.map((command) => command.data(setup)),
      checkServersAlways: false,
      logger,
    }).catch((error: unknown) => logger.error({ err: error }, 'could not register the slash commands'));
  logger.info(
    {
      user: client.user.tag,
      guilds: client.guilds.cache.size,
      invite: inviteUrl(client.application.id),
      ...(services.discord.userInstall ? { userInstall: userInstallUrl(client.application.id) } : {}),
    },
    'connected to Discord',
  );
  // After the unfinished work is queued: a scheduled run's stored message is then queued once, by one or the other.
  const scheduler = startScheduler({ ...services, store, queues, logger }, { intervalMs: deps.schedulerIntervalMs });
  const missed = await caughtUp;
  if (unfinished.resumed + unfinished.pending + missed > 0)
    logger.info({ ...unfinished, missed }, 'caught up after downtime');
  return {
    client,
    queues,
    scheduler,
    async stop({ graceMs = 5_000 } = {}) {
      router.close();
      scheduler.stop();
      const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
      await Promise.race([queues.idle(), after(graceMs)]);
      shutdown.abort(new Error('the bot is shutting down'));
      // Aborted runs end at once; a post or a database write in flight gets a moment more, no more.
      await Promise.race([queues.idle(), after(2_000)]);
      await Promise.race([services.moderatorLog.stop(), after(2_000)]);
      await client.destroy();
    },
  };
}
