/**
 * The moderators' log channel of each server. Comes from: the facts the bot records (a run
 * delivered, through the run lifecycle's `settled` hook; a `/settings` change; and what the other
 * parts `record`). Does: keeps each entry in the outbox (db/log-outbox.ts) in the caller's
 * transaction, then posts the cards in batches, slowly and only while the REST budget has room
 * (log-poster.ts). Goes to: the server's log channel (`/settings log-channel`).
 */
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import type { ContentFlag } from '../../content-check/content-checks.ts';
import type { ModelCatalog } from '../../model-catalog/model-catalog.ts';
import type { LogEntry } from '../../moderator-log/log-entry.ts';
import { logChannelOf } from '../../place-settings/effective-settings.ts';
import type { Client } from 'discord.js';
import { LogPoster } from './log-poster.ts';

/** The log channel service on BotServices: what the other parts call. */
export interface ModeratorLog {
  /**
   * Owes `entry`'s card to the server's log channel (nothing when it has none). Synchronous: call
   * it inside the transaction that records the fact, so that the card survives a crash with it.
   */
  record(guildId: string, entry: LogEntry): void;
  /** A run was delivered (answered, failed, stopped, refused): owes its card to its server's log channel. */
  recordRun(runId: string): void;
  /** A content check flagged a question or an answer: owes its card to its server's log channel. */
  recordFlag(flag: ContentFlag): void;
  /** The server's log channel was set, set again or cleared: a problem is forgotten, owed cards are tried again. */
  channelChanged(guildId: string): void;
  /** Why the bot cannot post in the server's log channel (reported once), or null. */
  problem(guildId: string): string | null;
  /** Stops posting (what is owed stays in the outbox for the next start). */
  stop(): Promise<void>;
}

export interface ModeratorLogOptions {
  store: Store;
  models: Pick<ModelCatalog, 'entry'>;
  logger: Logger;
  /** How long between two posts, at least (a random part up to half of it is added). */
  paceMs: number;
}

/** The most cards a server may be owed at once. */
const maxOwedCards = 2000;

/** The service; it starts posting at once what a previous process left owed. */
export function startModeratorLog(client: Client<true>, options: ModeratorLogOptions): ModeratorLog {
  const { store } = options;
  const poster = new LogPoster(client, options);
  poster.wake();
  const record = (guildId: string, entry: LogEntry) => {
    if (logChannelOf(store.placeSettings, guildId) === null) return;
    store.logOutbox.add(guildId, JSON.stringify(entry));
    // A log channel the bot cannot post in keeps its cards until it is set again: bounded, the
    // oldest run cards go first (their runs stay in /steps; a burst past 600 is summarised anyway),
    // then the oldest of any kind.
    const over = store.logOutbox.count(guildId) - maxOwedCards;
    if (over > 0) store.logOutbox.dropOldest(guildId, over);
    poster.wake(); // A timer: the poster reads the row once the caller's transaction is over.
  };
  return {
    record,
    recordRun(runId) {
      const run = store.runs.byId(runId);
      const guildId = run ? store.conversations.byId(run.conversation_id)?.guild_id : null;
      if (guildId) record(guildId, { kind: 'run', runId });
    },
    recordFlag(flag) {
      if (!flag.guildId) return;
      const conversation = store.conversations.byId(flag.conversationId);
      record(flag.guildId, {
        kind: 'flag',
        channelId: conversation?.thread_id ?? conversation?.channel_id ?? '',
        runId: flag.runId,
        part: flag.target,
        categories: flag.categories.map((name) => ({ name, score: flag.scores[name] ?? null })),
      });
    },
    channelChanged(guildId) {
      poster.forgetProblem(guildId);
      if (logChannelOf(store.placeSettings, guildId) === null) store.logOutbox.removeGuild(guildId);
      poster.wake();
    },
    problem: (guildId) => poster.problemOf(guildId),
    stop: () => poster.stop(),
  };
}
