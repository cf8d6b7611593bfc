import { type Channel, Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';
import type { LimitedModelClient } from '../agent/limit-model-calls.ts';
import type { ModelClient } from '../agent/model-client.ts';
import type { AgentSettings } from '../agent/run-agent.ts';
import type { RuntimeTool, ToolServer } from '../agent/tool.ts';
import type { DiscordSettings } from '../app/config-shape.ts';
import { conversationMemory, type MemorySettings } from '../memory/conversation-memory.ts';
import type { TokenCounter } from '../memory/token-counter.ts';
import { ActiveRuns } from '../conversation/active-runs.ts';
import { ConversationQueues } from '../conversation/conversation-queues.ts';
import type { QueuedWork } from '../conversation/queued-work.ts';
import { runLifecycle } from '../conversation/run-lifecycle.ts';
import { handleWork } from './runs/take-up.ts';
import { discordCdnOrigins } from './inbound/incoming-images.ts';
import { type ModelVision, settingsOfConversation } from '../place-settings/place-choice.ts';
import { inviteUrl } from './invite.ts';
import { messageRouter } from './inbound/message-router.ts';
import { RateLimitGate } from '../conversation/rate-limit-gate.ts';
import { catchUp, queueUnfinishedWork, recentConversations, watchChannels } from './inbound/recovery.ts';
import { type ReminderScheduler, startReminders } from './outbound/reminder-scheduler.ts';
import { noPings } from './outbound/send.ts';
import { restRequestsPerSecond } from '../shards/shard-plan.ts';
import type { CommandContext, CommandDefinition } from './interactions/command-context.ts';
import { commandRouter } from './interactions/command-router.ts';
import { explainLoginError } from './discord-errors.ts';
import { registerCommands } from './interactions/command-sync.ts';
import { toolSubcommands } from './interactions/tool-options.ts';
import { UsageLimits } from '../conversation/usage-limits.ts';
import { type ModelCatalog, singleModelCatalog } from '../model-catalog/model-catalog.ts';

export interface BotDependencies {
  discord: DiscordSettings & { token: string };
  /** The slash and context-menu commands (commands/index.ts). */
  commands: readonly CommandDefinition[];
  /** How often due reminders are looked for (tests make it short). */
  reminderIntervalMs?: number;
  agent: AgentSettings;
  memory: MemorySettings;
  /** Images: whether they are taken in (some model sees them) and the largest taken (IMAGE_MAX_MB). */
  images: { vision: boolean; maxBytes: number };
  /** What each model (by name) sees; without it, every model sees images as `images.vision` says. */
  visionOf?: (modelName: string) => ModelVision;
  operatorPrompt: string | null;
  store: Store;
  counter: TokenCounter;
  model: ModelClient & Partial<Pick<LimitedModelClient, 'turn'>>;
  /** Every model on offer (MODELS_FILE), `model` being the default's client; without it, `model` alone. */
  models?: ModelCatalog;
  tools: readonly RuntimeTool[];
  /** Servers whose tools come and go (MCP servers): listed anew for each run. */
  toolServers?: readonly ToolServer[];
  instanceId: string;
  logger: Logger;
  /**
   * The shards this process runs (under a shard manager), or null: all of them, in one process. The
   * slash commands are registered by the process that runs shard 0 only.
   */
  shard?: { ids: number[]; count: number } | null;
  /** Told once each gateway event's handler has settled, whether it succeeded or failed (tests wait on it). */
  onHandled?: (event: HandledEvent) => void;
}

/** A gateway event the bot has finished handling: a message's, an interaction's or a channel's id. */
export interface HandledEvent {
  kind: 'message' | 'edit' | 'deletion' | 'thread-deletion' | 'channel-deletion' | 'interaction';
  id: string;
}

export interface Bot {
  client: Client<true>;
  queues: ConversationQueues<QueuedWork>;
  /** The reminder scheduler (tests run a pass with `tick()` and wait for what it did). */
  reminders: ReminderScheduler;
  /**
   * Stops taking messages, lets runs in flight finish for up to `graceMs`, then aborts the rest
   * (they are taken up at the next start), and disconnects.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** Connects to Discord and answers in threads until stopped. Resolves once the bot is ready. */
export async function startBot(deps: BotDependencies): Promise<Bot> {
  const { logger } = deps;
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
    partials: [Partials.Message, Partials.Channel],
    rest: {
      api: deps.discord.apiUrl,
      globalRequestsPerSecond: deps.shard ? restRequestsPerSecond(deps.shard.ids.length, deps.shard.count) : 50,
    },
    allowedMentions: noPings,
  });
  const memory = conversationMemory(deps.store, deps.counter, deps.memory);
  const shutdown = new AbortController();
  const activeRuns = new ActiveRuns();
  const lifecycle = runLifecycle(deps.store);
  const limits = new UsageLimits(deps.store, deps.discord);
  const toolServers = deps.toolServers ?? [];
  const models = deps.models ?? singleModelCatalog(deps.model);
  // One gate per model: a long rate limit of one server holds back the runs of its model only.
  const gates = new Map(models.entries.map((entry) => [entry.name, new RateLimitGate(logger)]));
  const gate = gates.get(models.defaultName) ?? new RateLimitGate(logger);
  const toolCommands = toolSubcommands(deps.tools, toolServers);
  for (const { tool, reason } of toolCommands.leftOut) logger.warn({ tool, reason }, 'tool left out of /tool');
  const watch = (channels: Iterable<Channel>) => watchChannels(deps.store, deps.discord, logger, channels);
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
    await client.login(deps.discord.token);
  } catch (error) {
    await client.destroy();
    throw explainLoginError(error);
  }
  const readyClient = await ready;
  const runner = {
    client: readyClient,
    store: deps.store,
    lifecycle,
    memory,
    model: deps.model,
    models,
    tools: deps.tools,
    toolServers,
    limits,
    settings: deps.agent,
    discord: deps.discord,
    memoryBudget: deps.memory.tokenBudget,
    operatorPrompt: deps.operatorPrompt,
    instanceId: deps.instanceId,
    logger,
    gate,
    gateFor: (modelName: string) => gates.get(modelName) ?? gate,
    visionOf: deps.visionOf,
    shutdown: shutdown.signal,
    activeRuns,
  };
  const queues = new ConversationQueues<QueuedWork>(
    (conversationKey, batch) => handleWork(runner, conversationKey, batch),
    (error, conversationKey) =>
      logger.error({ err: error, conversation: conversationKey }, 'answering in a conversation failed'),
  );
  const router = messageRouter({
    client: readyClient,
    store: deps.store,
    memory,
    counter: deps.counter,
    queues,
    discord: deps.discord,
    limits,
    images: { ...deps.images, origins: deps.discord.cdnOrigin ? [deps.discord.cdnOrigin] : discordCdnOrigins },
    seesImagesIn: (conversation) =>
      deps.visionOf?.(settingsOfConversation(deps.store, models, conversation)?.model.value ?? models.defaultName)
        .seesImages ?? deps.images.vision,
    logger,
  });
  const setup = {
    tools: deps.tools,
    toolServers,
    toolSubcommands: toolCommands,
    moderatorRoleIds: deps.discord.moderatorRoleIds,
    models: models.entries,
  };
  const commandContext: CommandContext = {
    ...setup,
    client: readyClient,
    store: deps.store,
    memory,
    counter: deps.counter,
    queues,
    activeRuns,
    lifecycle,
    discord: deps.discord,
    agent: deps.agent,
    limits,
    modelCatalog: models,
    instanceId: deps.instanceId,
    logger,
  };
  const onCommand = commandRouter(deps.commands, commandContext);
  // Before any new message is handled: first what was left undone, then what was missed.
  const conversations = recentConversations(deps.store);
  const unfinished = queueUnfinishedWork(deps.store, lifecycle, queues, conversations);
  const caughtUp = catchUp(deps.store, router, logger, conversations);
  // Every handler's failure is logged, never left to crash the process (synchronous or not).
  const guard = (what: string, work: () => Promise<void> | void, ...handled: HandledEvent[]) => {
    // Fire and forget: the chain ends in a catch, and onHandled (a test's recorder) does not throw.
    void Promise.resolve()
      .then(work)
      .catch((error: unknown) => logger.error({ err: error }, `handling ${what} failed`))
      .then(() => handled.forEach((event) => deps.onHandled?.(event)));
  };
  client.on(Events.MessageCreate, (message) =>
    guard('a message', () => router.onMessageCreate(message), { kind: 'message', id: message.id }),
  );
  client.on(Events.MessageUpdate, (old, message) =>
    guard('an edit', () => router.onMessageUpdate(message, old), { kind: 'edit', id: message.id }),
  );
  client.on(Events.InteractionCreate, (interaction) =>
    guard('a command', () => onCommand(interaction), { kind: 'interaction', id: interaction.id }),
  );
  // Raw events: discord.js emits deletions only for what its cache still holds.
  client.on(Events.Raw, (packet: { t?: string; d?: Record<string, unknown> }) => {
    const data = packet.d ?? {};
    const ids = (data.ids as string[] | undefined) ?? [];
    if (packet.t === 'MESSAGE_DELETE')
      guard('a deletion', () => router.onMessagesDeleted(String(data.channel_id), [String(data.id)]), {
        kind: 'deletion',
        id: String(data.id),
      });
    if (packet.t === 'MESSAGE_DELETE_BULK')
      guard(
        'a bulk deletion',
        () => router.onMessagesDeleted(String(data.channel_id), ids),
        ...ids.map((id) => ({ kind: 'deletion' as const, id })),
      );
    if (packet.t === 'THREAD_DELETE')
      guard('a thread deletion', () => router.onThreadDeleted(String(data.id)), {
        kind: 'thread-deletion',
        id: String(data.id),
      });
    if (packet.t === 'CHANNEL_DELETE')
      guard('a channel deletion', () => router.onChannelDeleted(String(data.id)), {
        kind: 'channel-deletion',
        id: String(data.id),
      });
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  client.on(Events.ShardDisconnect, (event, shard) => logger.warn({ code: event.code, shard }, 'gateway disconnected'));
  client.on(Events.ShardResume, (shard) => logger.info({ shard }, 'gateway resumed'));
  // Registered once listening: a command used meanwhile is answered by the definitions we have.
  // Once for the whole bot: by the process of shard 0 (the commands are the application's, not a shard's).
  if (!deps.shard || deps.shard.ids.includes(0))
    await registerCommands({
      rest: readyClient.rest,
      applicationId: readyClient.application.id,
      guildId: deps.discord.commandGuildId,
      wanted: deps.commands.map((command) => command.data(setup)),
      checkServersAlways: false,
      logger,
    }).catch((error: unknown) => logger.error({ err: error }, 'could not register the slash commands'));
  // A new gateway session (one that could not resume) may have missed messages: catch up again.
  client.on(Events.ShardReady, () =>
    guard('a new session', async () => {
      watch(readyClient.channels.cache.values()); // Channels made while it was away.
      await catchUp(deps.store, router, logger);
    }),
  );
  logger.info(
    {
      user: readyClient.user.tag,
      guilds: readyClient.guilds.cache.size,
      invite: inviteUrl(readyClient.application.id),
    },
    'connected to Discord',
  );
  const reminders = startReminders(readyClient, deps.store.reminders, deps.instanceId, logger, {
    intervalMs: deps.reminderIntervalMs,
  });
  const missed = await caughtUp;
  if (unfinished.resumed + unfinished.pending + missed > 0)
    logger.info({ ...unfinished, missed }, 'caught up after downtime');

  return {
    client: readyClient,
    queues,
    reminders,
    async stop({ graceMs = 5_000 } = {}) {
      router.close();
      reminders.stop();
      const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
      await Promise.race([queues.idle(), after(graceMs)]);
      shutdown.abort(new Error('the bot is shutting down'));
      // Aborted runs end at once; a post or a database write in flight gets a moment more, no more.
      await Promise.race([queues.idle(), after(2_000)]);
      await client.destroy();
    },
  };
}
