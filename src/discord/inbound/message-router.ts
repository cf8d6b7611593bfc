import { type Client, type Message, type PartialMessage, RESTJSONErrorCodes } from 'discord.js';
import type { ChannelCursorRow } from '../../../db/channel-cursors.ts';
import type { ConversationRow } from '../../../db/conversations.ts';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import type { DiscordSettings } from '../../settings/config-shape.ts';
import type { ConversationQueues } from '../../conversation/conversation-queues.ts';
import { discordConversationKey } from '../../conversation/conversation-keys.ts';
import { KeyedSerializer } from '../../conversation/keyed-serializer.ts';
import type { QueuedWork } from '../../conversation/queued-work.ts';
import type { ConversationMemory } from '../../memory/conversation-memory.ts';
import type { TokenCounter } from '../../memory/token-counter.ts';
import { holdsThreads, isAllowedPlace, isMentionChannel } from './allowed-places.ts';
import { ChannelProgress } from '../../conversation/channel-progress.ts';
import { channelGoneCodes, describeDiscordError, isDiscordCode } from '../discord-errors.ts';
import type { ImageIntake } from './incoming-images.ts';
import { cleanText } from './incoming-message.ts';
import { storeEdit } from './message-edits.ts';
import { type DirectMessage, type GuildMessage, messageIntake, type RoutedMessage } from './message-intake.ts';
import { DirectMessages } from './direct-messages.ts';
import { SharedServers } from './shared-servers.ts';
import { messagesAfter } from './messages-after.ts';
import { withinLimits } from './message-limits.ts';
import { threadName } from '../../posts/render.ts';
import type { UsageLimits } from '../../conversation/usage-limits.ts';
import type { ModeratorLog } from '../moderator-log/moderator-log.ts';
import type { ModelCatalog } from '../../model-catalog/model-catalog.ts';
import { settingsOfConversation } from '../../place-settings/place-choice.ts';
import { opensForumPost } from './forum-posts.ts';
import type { KnowledgeParts } from '../knowledge/knowledge-additions.ts';
import {
  syncDeletedChannel,
  syncDeletedMessages,
  syncEditedMessage,
  syncThreadsGoneUnseen,
} from '../knowledge/knowledge-sync.ts';

export interface RouterDependencies {
  client: Client<true>;
  store: Store;
  /** The models on offer: what a place's settings are read against. */
  models: ModelCatalog;
  memory: ConversationMemory;
  counter: TokenCounter;
  queues: ConversationQueues<QueuedWork>;
  discord: DiscordSettings;
  limits: UsageLimits;
  /** How images are taken in (vision, size limit, the origins fetched from). */
  images: ImageIntake;
  /** Whether the model chosen where the conversation is sees images (the notice to its people); `images.vision` without it. */
  seesImagesIn?: (conversation: ConversationRow) => boolean;
  logger: Logger;
  /** Told of a message refused by the person's rate or the server's budget (once a window, as its author is). */
  moderatorLog: Pick<ModeratorLog, 'record'>;
  /** The servers' knowledge: a message added to it follows its edits and deletion. */
  knowledge: KnowledgeParts;
}

/**
 * Decides what a message is to the bot. A mention (of its user or its managed role; @everyone and
 * @here do not count) in an allowed text channel starts a thread from that message; in a
 * conversation thread every message goes to the agent; a mention in another thread makes that
 * thread a conversation. Messages from bots are ignored.
 *
 * Messages of one conversation are handled one after another, in the order they came, keyed by
 * the conversation's key: a thread made from a message takes the message's id, so a reply posted
 * in the new thread at once waits until the message that started it is handled.
 */
export class MessageRouter {
  /** Messages of one conversation, one after another, in the order they came. */
  private readonly line = new KeyedSerializer();
  private readonly progress: ChannelProgress;
  private readonly intake: ReturnType<typeof messageIntake>;
  /** Direct messages, with ALLOW_DMS=on only (off, Discord sends none: the intent is not asked for). */
  private readonly directMessages: DirectMessages | null;
  private closed = false;

  constructor(private readonly deps: RouterDependencies) {
    this.progress = new ChannelProgress((channelId, guildId, messageId) =>
      deps.store.channelCursors.advance(channelId, guildId, messageId),
    );
    this.intake = messageIntake(deps);
    this.directMessages = deps.discord.allowDms
      ? new DirectMessages({
          ...deps,
          shared: new SharedServers(deps.client, deps.discord.allowedGuildIds, deps.logger),
          intake: this.intake,
          line: this.line,
          withinLimits: (message) => withinLimits(this.deps, message),
        })
      : null;
  }

  async onMessageCreate(message: Message): Promise<void> {
    if (this.closed || message.author.bot || message.system) return;
    if (!message.inGuild()) {
      if (message.channel.isDMBased() && !message.channel.isThread())
        await this.directMessages?.onMessage(message as DirectMessage);
      return;
    }
    await this.handleCreate(message as GuildMessage);
  }

  /**
   * An edited message is edited in memory too (a thread's first message lives in its parent
   * channel); `before` is the message as cached, if it was.
   */
  async onMessageUpdate(
    message: Message | PartialMessage,
    before: Message | PartialMessage | null = null,
  ): Promise<void> {
    const { store, counter } = this.deps;
    await syncEditedMessage(this.deps.knowledge, message, before, this.deps.logger);
    if (!store.messages.hasDiscordId(message.id)) return;
    const full = message.partial ? await message.fetch().catch(() => null) : message;
    // A DM's edit too, with DMs on (only a DM that was taken in is stored).
    if (!full || full.author.bot || (!full.inGuild() && !this.directMessages)) return;
    await storeEdit(before, full, { store, counter, reading: this.intake.reading(full as RoutedMessage) });
  }

  /**
   * Deleted messages leave memory. A deletion waits for the handling of messages still on
   * their way in (a thread's first message is keyed by its own id), so none slips past it.
   */
  async onMessagesDeleted(
    channelId: string,
    messageIds: readonly string[],
    guildId: string | null = null,
  ): Promise<void> {
    await Promise.all([channelId, ...messageIds].map((id) => this.line.settled(discordConversationKey(id))));
    for (const id of messageIds) this.deps.store.messages.deleteByDiscordId(id);
    if (guildId) syncDeletedMessages(this.deps.knowledge, guildId, channelId, messageIds);
  }

  /** A deleted thread's conversation is purged: messages, runs and steps. */
  async onThreadDeleted(threadId: string, guildId: string | null = null): Promise<void> {
    const { store, logger } = this.deps;
    if (guildId) syncDeletedChannel(this.deps.knowledge, guildId, [threadId]);
    // What its moderators set there goes with it, as everything of the thread does.
    store.placeSettings.forget('thread', threadId);
    await this.line.settled(discordConversationKey(threadId));
    const conversation = store.conversations.byKey(discordConversationKey(threadId));
    if (!conversation) return;
    store.conversations.purge(conversation.id);
    logger.info({ threadId }, 'conversation purged with its thread');
  }

  /**
   * A deleted channel takes its threads with it: their conversations are purged, and the knowledge
   * of its messages and of its threads' (`threadIds`: those discord.js held when it went).
   */
  async onChannelDeleted(
    channelId: string,
    guildId: string | null = null,
    threadIds: readonly string[] = [],
  ): Promise<void> {
    const { store, logger } = this.deps;
    store.channelCursors.forget(channelId);
    store.placeSettings.forget('channel', channelId);
    const purged = store.conversations.purgeInChannel(channelId);
    if (purged > 0) logger.info({ channelId, conversations: purged }, 'conversations purged with their channel');
    if (!guildId) return;
    syncDeletedChannel(this.deps.knowledge, guildId, [channelId, ...threadIds]);
    await syncThreadsGoneUnseen(this.deps.knowledge, this.deps.client.channels, guildId);
  }

  /** At shutdown: messages from now on are left for the catch-up at the next start. */
  close(): void {
    this.closed = true;
  }

  /**
   * Reads what was posted in a conversation's thread after the last message seen (while the bot
   * was down, or its gateway session was lost) and handles it. Runs in the thread's turn, so a
   * message arriving meanwhile waits until those before it are stored. Returns how many.
   */
  catchUpThread(conversation: ConversationRow): Promise<number> {
    const threadId = conversation.thread_id;
    if (!threadId) return Promise.resolve(0);
    return this.line.run(discordConversationKey(threadId), async () => {
      const thread = await this.deps.client.channels.fetch(threadId).catch(() => null);
      if (!thread?.isTextBased()) return 0;
      // A DM conversation's channel is read back too, with DMs on.
      const direct = thread.isDMBased() && !thread.isThread() ? this.directMessages : null;
      if (!thread.isThread() && !direct) return 0;
      let handled = 0;
      const current = this.deps.store.conversations.byId(conversation.id) ?? conversation;
      for await (const message of messagesAfter(thread, current.last_seen_message_id ?? threadId)) {
        if (message.author.bot || message.system) continue;
        if (direct && !message.inGuild()) await direct.takeInLine(message as DirectMessage);
        else if (message.inGuild()) await this.handleInThread(message as GuildMessage);
        else continue;
        handled += 1;
      }
      return handled;
    });
  }

  /**
   * Reads what was posted in a channel after its cursor and handles the mentions among them as if
   * they had just arrived: one already stored (or refused) is not answered again. Returns how
   * many messages were read.
   */
  async catchUpChannel(cursor: ChannelCursorRow): Promise<number> {
    const channel = await this.readableChannel(cursor);
    // Nothing sent past the cursor, as Discord told at connecting (`last_message_id`: the newest
    // message sent; none: older than the channel's id. https://discord.com/developers/docs/resources/channel#channel-object):
    // no request, so the quiet channels it watches cost nothing at a start.
    if (!channel || BigInt(channel.lastMessageId ?? channel.id) <= BigInt(cursor.last_seen_message_id)) return 0;
    // Held at the cursor while reading: a live message handled meanwhile must not move it past
    // messages not yet read (a crash would skip them).
    const hold = this.progress.begin(cursor.channel_id, cursor.guild_id, cursor.last_seen_message_id);
    let read = 0;
    try {
      for await (const message of messagesAfter(channel, cursor.last_seen_message_id)) {
        read += 1;
        if (message.author.bot || message.system || !message.inGuild()) continue;
        await this.handleCreate(message as GuildMessage);
      }
    } finally {
      hold();
    }
    return read;
  }

  /** The cursor's channel, if it is still one it reads back; its cursor is forgotten otherwise. */
  private async readableChannel(cursor: ChannelCursorRow) {
    const { channel_id: channelId, guild_id: guildId } = cursor;
    const channel = await this.deps.client.channels.fetch(channelId).catch((error: unknown) => {
      if (isDiscordCode(error, channelGoneCodes)) return null;
      throw error; // A network failure, say: the cursor stays for the next start.
    });
    if (
      channel?.isTextBased() &&
      !channel.isThread() &&
      !channel.isDMBased() &&
      isAllowedPlace(this.deps.discord, guildId, channelId)
    )
      return channel;
    this.deps.store.channelCursors.forget(channelId); // Gone, no longer a channel it reads, or no longer allowed.
    return null;
  }

  /** In an allowed text channel, every message moves the channel's cursor once handled (see ChannelProgress). */
  private handleCreate(message: GuildMessage): Promise<void> {
    const channel = message.channel;
    if (channel.isThread())
      return this.line.run(discordConversationKey(channel.id), () => this.handleInThread(message));
    if (!isMentionChannel(channel) || !isAllowedPlace(this.deps.discord, message.guildId, channel.id))
      return Promise.resolve();
    const done = this.progress.begin(channel.id, message.guildId, message.id);
    const chain = this.replyChainOf(message);
    if (chain) return this.line.run(chain.key, () => this.handleInChain(message, chain)).finally(done);
    // A failure is logged by the caller; the cursor moves on, or it would hold every later message back.
    return this.line.run(discordConversationKey(message.id), () => this.handleInChannel(message)).finally(done);
  }

  private async handleInThread(message: GuildMessage): Promise<void> {
    const { store, discord, queues } = this.deps;
    const thread = message.channel;
    if (!thread.isThread() || !isAllowedPlace(discord, message.guildId, thread.parentId)) return;
    let existing = store.conversations.byKey(discordConversationKey(thread.id));
    // A thread made from a message the bot answered in the channel carries that conversation on.
    if (existing && existing.thread_id === null) existing = store.conversations.setThread(existing.id, thread.id);
    if (!existing && !this.mentionsBot(message) && !this.answersEveryPost(message)) return;
    const conversation =
      existing ??
      this.ensureConversation(message, {
        key: thread.id,
        threadId: thread.id,
        title: thread.name,
        channelId: thread.parentId,
      });
    if (this.alreadyStored(message)) return;
    if (!(await withinLimits(this.deps, message))) {
      // Seen and refused: not to be caught up on (and answered) later.
      store.conversations.setLastSeenMessage(conversation.id, message.id);
      return;
    }
    const work = await this.intake.record(message, conversation);
    if (work) queues.push(conversation.key, work);
  }

  /**
   * Where no thread could be made, the conversation goes on as a reply chain, as llmcord's does:
   * a reply to one of the bot's answers there is a follow-up of that answer's conversation, with
   * its memory, no mention needed. Null for any other message (a reply to anyone else, or to a
   * bot message that is no such answer).
   */
  private replyChainOf(message: GuildMessage): ConversationRow | null {
    const replied = message.reference?.messageId;
    if (!replied || message.mentions.repliedUser?.id !== this.deps.client.user.id) return null;
    return this.deps.store.conversations.answeredWith(message.channelId, replied) ?? null;
  }

  /** A follow-up in a reply chain: stored and queued on its conversation, as a thread's message is. */
  private async handleInChain(message: GuildMessage, conversation: ConversationRow): Promise<void> {
    if (this.alreadyStored(message) || !(await withinLimits(this.deps, message))) return;
    const work = await this.intake.record(message, conversation);
    if (work) this.deps.queues.push(conversation.key, work);
  }

  private async handleInChannel(message: GuildMessage): Promise<void> {
    const channel = message.channel;
    if (!this.mentionsBot(message) || this.alreadyStored(message) || !(await withinLimits(this.deps, message))) return;
    const name = threadName(
      cleanText(message, this.deps.client.user.id, this.intake.botRoleId(message)),
      message.member?.displayName ?? message.author.displayName,
    );
    // Stored before the thread is made (it takes the message's id), so that a crash in between
    // leaves a conversation and a message to answer at the next start, not a thread nobody knows.
    // A voice or stage channel's text chat has no threads: answered there, carried on as a reply chain.
    const threaded = holdsThreads(channel);
    const conversation = this.ensureConversation(message, {
      key: message.id,
      threadId: threaded ? message.id : null,
      title: name,
      channelId: channel.id,
    });
    const work = await this.intake.record(message, conversation);
    if (!work) return;
    if (!threaded) return this.deps.queues.push(conversation.key, work);
    // Its run starts now (the model called while the thread is being made: a burst of mentions is
    // not served one thread creation at a time); its posts wait for the thread.
    const threadMade = this.startThread(message, name, conversation.id);
    this.deps.queues.push(conversation.key, { ...work, placeReady: threadMade });
    await threadMade;
  }

  /** Starts the conversation's thread from the message; without one (no permission, say), it answers in the channel. */
  private async startThread(message: GuildMessage, name: string, conversationId: number): Promise<void> {
    const { logger } = this.deps;
    // The message has its thread already (the bot made it before a restore from an older backup, or
    // a member did): a thread started from a message has the message's id
    // (https://discord.com/developers/docs/resources/channel#start-thread-from-message), which the
    // conversation holds, so it goes on there. discord.js refuses a second one (MessageExistingThread)
    // where it knows of the first; Discord answers 160004 where it did not.
    const there = () =>
      logger.info(
        { threadId: message.id, channelId: message.channelId },
        'conversation continues in the thread its message already has',
      );
    if (message.hasThread) return there();
    try {
      const thread = await message.startThread({ name, autoArchiveDuration: 1440 });
      logger.info(
        { threadId: thread.id, channelId: message.channelId, guildId: message.guildId },
        'conversation started',
      );
    } catch (error) {
      if (isDiscordCode(error, [RESTJSONErrorCodes.ThreadAlreadyCreatedForMessage])) return there();
      logger.warn(
        { err: error, channelId: message.channelId, cause: describeDiscordError(error) },
        'could not start a thread: answering in the channel',
      );
      this.deps.store.conversations.setThread(conversationId, null);
    }
  }

  /** A new forum post, where moderators asked for every new post to be answered (`/settings forum-answers`). */
  private answersEveryPost(message: GuildMessage): boolean {
    if (!opensForumPost(message) || !message.channel.isThread()) return false;
    const place = { guild_id: message.guildId, channel_id: message.channel.parentId, thread_id: null };
    return settingsOfConversation(this.deps.store, this.deps.models, place)?.forumAnswers.value === true;
  }

  private mentionsBot(message: GuildMessage): boolean {
    if (message.mentions.users.has(this.deps.client.user.id)) return true;
    const role = this.intake.botRoleId(message);
    return role !== null && message.mentions.roles.has(role);
  }

  /** Read again (a gateway replay, a catch-up): it was counted and queued the first time. */
  private alreadyStored(message: GuildMessage): boolean {
    return this.deps.store.messages.hasDiscordId(message.id);
  }

  /** The conversation keyed by `where.key` (its first message, or its thread: one id), made if new. */
  private ensureConversation(
    message: GuildMessage,
    where: { key: string; threadId: string | null; title: string; channelId: string | null },
  ): ConversationRow {
    return this.deps.store.conversations.ensure({
      key: discordConversationKey(where.key),
      title: where.title,
      guildId: message.guildId,
      channelId: where.channelId,
      threadId: where.threadId,
      startedById: message.author.id,
      startedByName: message.member?.displayName ?? message.author.displayName,
    });
  }
}
