/**
 * Direct messages to the bot (ALLOW_DMS=on). Comes from: the message router, for a message with no
 * server. Does: refuses a person who shares no server with the bot (one reply an hour at most), then
 * treats the DM channel as a thread: one conversation per DM channel, keyed by the channel's id, with
 * no server (so no server's or channel's settings: the operator's defaults), within the person's rate
 * and the daily budget all DMs share (DM_DAILY_TOKENS). Goes to: the conversation's queue, as a
 * thread's messages do (src/discord/runs/answer-new-messages.ts).
 */
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import { discordConversationKey } from '../../conversation/conversation-keys.ts';
import type { ConversationQueues } from '../../conversation/conversation-queues.ts';
import type { KeyedSerializer } from '../../conversation/keyed-serializer.ts';
import type { QueuedWork } from '../../conversation/queued-work.ts';
import { noPings } from '../outbound/send.ts';
import type { DirectMessage, messageIntake, RoutedMessage } from './message-intake.ts';
import type { SharedServers } from './shared-servers.ts';

/** What a person who shares no server with the bot is told. */
export const noSharedServerNotice =
  'I answer direct messages only from members of a server I am in. Mention me in one of those servers, or join one first.';

/** How often a refused person is told again (their other DMs meanwhile get no reply). */
const tellAgainAfterMs = 60 * 60_000;

export interface DirectMessageDependencies {
  store: Store;
  queues: ConversationQueues<QueuedWork>;
  logger: Logger;
  shared: SharedServers;
  intake: ReturnType<typeof messageIntake>;
  /** The router's line: messages of one conversation one after another. */
  line: KeyedSerializer;
  /** The person's rate and the DMs' budget; false once refused (and told, at most once a window). */
  withinLimits: (message: RoutedMessage) => Promise<boolean>;
  now?: () => number;
}

export class DirectMessages {
  private readonly told = new Map<string, number>();

  constructor(private readonly deps: DirectMessageDependencies) {}

  /** Takes a DM in: refused, or stored and queued in its conversation's turn. */
  onMessage(message: DirectMessage): Promise<void> {
    // The check is in the line too: a second DM must not overtake a first still being checked.
    return this.deps.line.run(discordConversationKey(message.channelId), () => this.takeInLine(message));
  }

  /** Takes a DM in, already in its conversation's turn of the line (the catch-up after downtime). */
  async takeInLine(message: DirectMessage): Promise<void> {
    const { store, queues, intake, withinLimits, shared, logger } = this.deps;
    if (!(await shared.shareOne(message.author.id))) {
      logger.info({ userId: message.author.id }, 'direct message refused: no server shared');
      return this.refuse(message);
    }
    if (store.messages.hasDiscordId(message.id)) return; // A replay: counted and queued the first time.
    const conversation = store.conversations.ensure({
      key: discordConversationKey(message.channelId),
      title: `Direct messages with ${message.author.displayName}`,
      guildId: null,
      channelId: message.channelId,
      threadId: message.channelId,
      startedById: message.author.id,
      startedByName: message.author.displayName,
    });
    if (!(await withinLimits(message))) {
      store.conversations.setLastSeenMessage(conversation.id, message.id);
      return;
    }
    const work = await intake.record(message, conversation);
    if (work) queues.push(conversation.key, work);
  }

  /** One reply per person an hour at most: more would answer a stranger's every message. */
  private async refuse(message: DirectMessage): Promise<void> {
    const now = (this.deps.now ?? Date.now)();
    if ((this.told.get(message.author.id) ?? 0) > now) return;
    if (this.told.size >= 1000) for (const [id, until] of this.told) if (until <= now) this.told.delete(id);
    this.told.set(message.author.id, now + tellAgainAfterMs);
    await message
      .reply({ content: noSharedServerNotice, allowedMentions: noPings })
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'could not post the DM refusal'));
  }
}
