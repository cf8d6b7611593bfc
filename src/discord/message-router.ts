import {
  ChannelType,
  type Client,
  type Message,
  type OmitPartialGroupDMChannel,
  type PartialMessage,
} from 'discord.js';
import type { ConversationRow } from '../../db/conversations.ts';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';
import type { Requester } from '../agent/tool.ts';
import type { DiscordSettings } from '../config.ts';
import type { ConversationMemory } from '../memory/conversation-memory.ts';
import type { TokenCounter } from '../memory/token-counter.ts';
import { formatUserContent } from '../memory/window.ts';
import type { QueuedWork } from './conversation-runner.ts';
import { describeDiscordError } from './execute-run.ts';
import { cleanText, messageText } from './incoming-message.ts';
import { isModerator } from './moderation.ts';
import { threadName } from './render.ts';
import { noPings } from './send.ts';
import type { ThreadQueues } from './thread-queue.ts';
import type { UsageLimits } from './usage-limits.ts';

export interface RouterDependencies {
  client: Client<true>;
  store: Store;
  memory: ConversationMemory;
  counter: TokenCounter;
  queues: ThreadQueues<QueuedWork>;
  discord: DiscordSettings;
  limits: UsageLimits;
  logger: Logger;
}

type GuildMessage = OmitPartialGroupDMChannel<Message<true>>;

export const conversationKey = (threadId: string) => `discord:${threadId}`;

/**
 * Decides what a message is to the bot. A mention (of its user or its managed role; @everyone and
 * @here do not count) in an allowed text channel starts a thread from that message; in a
 * conversation thread every message goes to the agent; a mention in another thread makes that
 * thread a conversation. Messages from bots are ignored.
 */
export function messageRouter(deps: RouterDependencies) {
  const { client, store, memory, discord, logger } = deps;
  const botRoleId = (message: GuildMessage) => message.guild.roles.botRoleFor(client.user)?.id ?? null;
  const mentionsBot = (message: GuildMessage) => {
    if (message.mentions.users.has(client.user.id)) return true;
    const role = botRoleId(message);
    return role !== null && message.mentions.roles.has(role);
  };
  const allowed = (message: GuildMessage, channelId: string | null) =>
    (discord.allowedGuildIds.length === 0 || discord.allowedGuildIds.includes(message.guildId)) &&
    (discord.allowedChannelIds.length === 0 || (channelId !== null && discord.allowedChannelIds.includes(channelId)));

  /** Stores the message (null if it already was: the gateway can deliver an event twice). */
  async function record(message: GuildMessage, conversation: ConversationRow): Promise<QueuedWork | null> {
    const content = await messageText(message, client.user.id, botRoleId(message), discord.attachmentMaxBytes);
    const requester = requesterOf(message, discord.moderatorRoleIds);
    const storedId = memory.recordUserMessage(conversation, {
      authorId: message.author.id,
      authorName: requester.displayName,
      content,
      discordMessageId: message.id,
    });
    if (storedId === null) return null;
    if (message.channel.isThread()) store.conversations.setLastSeenMessage(conversation.id, message.id);
    return { kind: 'message', storedId, messageId: message.id, messageChannelId: message.channelId, requester };
  }

  async function enqueue(message: GuildMessage, conversation: ConversationRow): Promise<void> {
    if (!(await withinLimits(message))) {
      // Seen and refused: not to be caught up on (and answered) later.
      if (message.channel.isThread()) store.conversations.setLastSeenMessage(conversation.id, message.id);
      return;
    }
    const work = await record(message, conversation);
    if (work) deps.queues.push(conversation.key, work);
  }

  /**
   * The per-person rate and the server's daily budget: past either, one polite reply per window,
   * posted before the message counts as handled.
   */
  async function withinLimits(message: GuildMessage): Promise<boolean> {
    const verdict = deps.limits.check(message.author.id, message.guildId);
    if (verdict.ok) return true;
    if (verdict.tell) {
      await message
        .reply({ content: verdict.message, allowedMentions: noPings })
        .catch((error: unknown) => logger.warn({ err: error, channelId: message.channelId }, 'could not post the limit notice'));
    }
    return false;
  }

  /** The conversation of a thread (`threadId`), or of a message answered in its channel (no thread). */
  function ensureConversation(message: GuildMessage, where: { threadId: string | null; key: string; title: string; channelId: string | null }): ConversationRow {
    return store.conversations.ensure({
      key: where.key,
      title: where.title,
      guildId: message.guildId,
      channelId: where.channelId,
      threadId: where.threadId,
      startedById: message.author.id,
      startedByName: message.member?.displayName ?? message.author.displayName,
    });
  }

  async function handleCreate(message: GuildMessage): Promise<void> {
    const channel = message.channel;
    if (channel.isThread()) {
      if (!allowed(message, channel.parentId)) return;
      let existing = store.conversations.byKey(conversationKey(channel.id));
      // A thread made from a message the bot answered in the channel carries that conversation on.
      if (existing && existing.thread_id === null) existing = store.conversations.setThread(existing.id, channel.id);
      if (!existing && !mentionsBot(message)) return;
      const where = { threadId: channel.id, key: conversationKey(channel.id), title: channel.name, channelId: channel.parentId };
      await enqueue(message, existing ?? ensureConversation(message, where));
      return;
    }
    if (channel.type !== ChannelType.GuildText && channel.type !== ChannelType.GuildAnnouncement) return;
    if (!allowed(message, channel.id) || !mentionsBot(message)) return;
    const name = threadName(cleanText(message, client.user.id, botRoleId(message)), message.member?.displayName ?? message.author.displayName);
    // Stored before the thread is made (it takes the message's id), so that a crash in between
    // leaves a conversation and a message to answer at the next start, not a thread nobody knows.
    if (!(await withinLimits(message))) return;
    const conversation = ensureConversation(message, { threadId: message.id, key: conversationKey(message.id), title: name, channelId: channel.id });
    const work = await record(message, conversation);
    if (!work) return;
    try {
      const thread = await message.startThread({ name, autoArchiveDuration: 1440 });
      logger.info({ threadId: thread.id, channelId: channel.id, guildId: message.guildId }, 'conversation started');
    } catch (error) {
      // No thread (no Create Public Threads permission, say): answer in the channel instead.
      logger.warn({ err: error, channelId: channel.id, cause: describeDiscordError(error) }, 'could not start a thread: answering in the channel');
      store.conversations.setThread(conversation.id, null);
    }
    deps.queues.push(conversation.key, work);
  }

  // Messages of one thread are handled one after another, in the order they came. A thread
  // started from a message has that message's id, so a reply posted in the new thread at once
  // waits until its conversation exists, and comes after the message that started it.
  const chains = new Map<string, Promise<void>>();
  function inOrder(key: string, work: () => Promise<void>): Promise<void> {
    const next = (chains.get(key) ?? Promise.resolve()).then(work);
    const settled = next.catch(() => {});
    chains.set(key, settled);
    void settled.then(() => {
      if (chains.get(key) === settled) chains.delete(key);
    });
    return next;
  }

  let closed = false;

  return {
    /**
     * Fetches and handles what was posted in a conversation's thread after the last message seen
     * (while the bot was down, or its gateway session was lost). Runs in the thread's turn, so a
     * message arriving meanwhile waits until those before it are stored.
     */
    catchUp(conversation: ConversationRow): Promise<number> {
      const threadId = conversation.thread_id;
      if (!threadId) return Promise.resolve(0);
      let handled = 0;
      return inOrder(threadId, async () => {
        const thread = await client.channels.fetch(threadId).catch(() => null);
        if (!thread?.isThread()) return;
        let after = conversation.last_seen_message_id ?? threadId;
        for (let page = 0; page < 20; page++) {
          const batch = [...(await thread.messages.fetch({ after, limit: 100 })).values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
          for (const message of batch) {
            after = message.id;
            if (message.author.bot || message.system || !message.inGuild()) continue;
            await enqueue(message as GuildMessage, store.conversations.byId(conversation.id) ?? conversation);
            handled += 1;
          }
          if (batch.length < 100) break;
        }
      }).then(() => handled);
    },

    /** At shutdown: messages from now on are left for the catch-up at the next start. */
    close(): void {
      closed = true;
    },

    async onMessageCreate(message: Message): Promise<void> {
      if (closed || message.author.bot || !message.inGuild() || message.system) return;
      const guildMessage = message as GuildMessage;
      await inOrder(guildMessage.channel.isThread() ? guildMessage.channelId : guildMessage.id, () => handleCreate(guildMessage));
    },

    /** An edited message is edited in memory too (a thread's first message lives in its parent channel). */
    async onMessageUpdate(message: Message | PartialMessage): Promise<void> {
      if (!store.messages.hasDiscordId(message.id)) return;
      const full = message.partial ? await message.fetch().catch(() => null) : message;
      if (!full || full.author.bot || !full.inGuild()) return;
      const content = await messageText(full as GuildMessage, client.user.id, botRoleId(full as GuildMessage), discord.attachmentMaxBytes);
      const authorName = full.member?.displayName ?? full.author.displayName;
      store.messages.editByDiscordId(full.id, content, deps.counter.count(formatUserContent(authorName, content)));
    },

    /**
     * Deleted messages leave memory. A deletion waits for the handling of messages still on
     * their way in (a thread's first message is keyed by its own id), so none slips past it.
     */
    async onMessagesDeleted(channelId: string, messageIds: readonly string[]): Promise<void> {
      await Promise.all([channelId, ...messageIds].map((key) => chains.get(key)));
      for (const id of messageIds) store.messages.deleteByDiscordId(id);
    },

    /** A deleted thread's conversation is purged: messages, runs and steps. */
    async onThreadDeleted(threadId: string): Promise<void> {
      await chains.get(threadId);
      const conversation = store.conversations.byKey(conversationKey(threadId));
      if (!conversation) return;
      store.conversations.purge(conversation.id);
      logger.info({ threadId }, 'conversation purged with its thread');
    },

    /** A deleted channel takes its threads with it: their conversations are purged. */
    onChannelDeleted(channelId: string): void {
      const purged = store.conversations.purgeInChannel(channelId);
      if (purged > 0) logger.info({ channelId, conversations: purged }, 'conversations purged with their channel');
    },
  };
}

/** Who wrote the message, and whether Discord says they are a moderator where they wrote it. */
function requesterOf(message: GuildMessage, moderatorRoleIds: readonly string[]): Requester {
  return {
    id: message.author.id,
    displayName: message.member?.displayName ?? message.author.displayName,
    isModerator: isModerator(message.member, message.channel, moderatorRoleIds),
  };
}
