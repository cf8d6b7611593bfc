/**
 * Where each gateway event goes. Comes from: the discord.js client, once ready (bot.ts). Does: hand
 * messages, edits and deletions to the inbound router, interactions to the command router, and a
 * new session to a catch-up; every handler's failure is logged, never left to crash the process.
 * Goes to: src/discord/inbound/message-router.ts and src/discord/interactions/command-router.ts.
 */
import { type Client, Events, type Interaction } from 'discord.js';
import type { Logger } from '../agent/logger.ts';
import type { MessageRouter } from './inbound/message-router.ts';

/** A gateway event the bot has finished handling: a message's, an interaction's or a channel's id. */
export interface HandledEvent {
  kind: 'message' | 'edit' | 'deletion' | 'thread-deletion' | 'channel-deletion' | 'interaction';
  id: string;
}

export interface GatewayHandlers {
  router: MessageRouter;
  onCommand(interaction: Interaction): Promise<void>;
  /** A new gateway session (one that could not resume): it may have missed messages. */
  onNewSession(): Promise<void>;
  logger: Logger;
  /** Told once each event's handler has settled, whether it succeeded or failed (tests wait on it). */
  onHandled?: (event: HandledEvent) => void;
}

/** Routes the client's events to their handlers. */
export function routeGatewayEvents(client: Client<true>, handlers: GatewayHandlers): void {
  const { router, logger } = handlers;
  const guard = (what: string, work: () => Promise<void> | void, ...handled: HandledEvent[]) => {
    // Fire and forget: the chain ends in a catch, and onHandled (a test's recorder) does not throw.
    void Promise.resolve()
      .then(work)
      .catch((error: unknown) => logger.error({ err: error }, `handling ${what} failed`))
      .then(() => handled.forEach((event) => handlers.onHandled?.(event)));
  };
  client.on(Events.MessageCreate, (message) =>
    guard('a message', () => router.onMessageCreate(message), { kind: 'message', id: message.id }),
  );
  client.on(Events.MessageUpdate, (old, message) =>
    guard('an edit', () => router.onMessageUpdate(message, old), { kind: 'edit', id: message.id }),
  );
  client.on(Events.InteractionCreate, (interaction) =>
    guard('a command', () => handlers.onCommand(interaction), { kind: 'interaction', id: interaction.id }),
  );
  // Raw events: discord.js emits deletions only for what its cache still holds.
  client.on(Events.Raw, (packet: { t?: string; d?: Record<string, unknown> }) =>
    routeDeletion(packet, router, guard, client),
  );
  client.on(Events.ShardReady, () => guard('a new session', () => handlers.onNewSession()));
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  client.on(Events.ShardDisconnect, (event, shard) => logger.warn({ code: event.code, shard }, 'gateway disconnected'));
  client.on(Events.ShardResume, (shard) => logger.info({ shard }, 'gateway resumed'));
}

/** A raw deletion event (a message, several, a thread, a channel) to the router. */
function routeDeletion(
  packet: { t?: string; d?: Record<string, unknown> },
  router: MessageRouter,
  guard: (what: string, work: () => Promise<void> | void, ...handled: HandledEvent[]) => void,
  client: Client<true>,
): void {
  const data = packet.d ?? {};
  const id = String(data.id);
  // A DM's deletion names no server.
  const guildId = typeof data.guild_id === 'string' ? data.guild_id : null;
  if (packet.t === 'MESSAGE_DELETE')
    guard('a deletion', () => router.onMessagesDeleted(String(data.channel_id), [id], guildId), {
      kind: 'deletion',
      id,
    });
  if (packet.t === 'MESSAGE_DELETE_BULK') {
    const ids = (data.ids as string[] | undefined) ?? [];
    guard(
      'a bulk deletion',
      () => router.onMessagesDeleted(String(data.channel_id), ids, guildId),
      ...ids.map((deleted) => ({ kind: 'deletion' as const, id: deleted })),
    );
  }
  if (packet.t === 'THREAD_DELETE')
    guard('a thread deletion', () => router.onThreadDeleted(id, guildId), { kind: 'thread-deletion', id });
  if (packet.t === 'CHANNEL_DELETE') {
    // Read now: the raw event comes before discord.js's own handling, which drops the threads from its cache.
    const threadIds = cachedThreadsOf(client, id);
    guard('a channel deletion', () => router.onChannelDeleted(id, guildId, threadIds), {
      kind: 'channel-deletion',
      id,
    });
  }
}

/**
 * The threads of a channel that discord.js holds (the active ones, from the guild's GUILD_CREATE
 * and THREAD_CREATE / THREAD_LIST_SYNC, and any fetched since; an archived thread never seen is
 * not among them). When a channel is deleted Discord sends no THREAD_DELETE for its threads
 * (https://github.com/discordjs/discord.js/pull/10883, which made discord.js drop them from its
 * cache as it handles CHANNEL_DELETE), so this is where the bot learns which threads went with it.
 */
function cachedThreadsOf(client: Client<true>, channelId: string): string[] {
  return [...client.channels.cache.values()]
    .filter((channel) => channel.isThread() && channel.parentId === channelId)
    .map((thread) => thread.id);
}
