/**
 * Posts what the outbox owes the log channels, one message at a time, behind the answers: at most
 * one post per pace (with jitter, so that shards and processes do not post in step), and only
 * while at least half of the bot's global REST budget for this second is left. Answers go to other
 * routes (their own channels), so discord.js's per-route queues never put a card before an answer;
 * the global budget is what both share. Cards settle (leave the outbox) only once posted.
 */
import { createHash } from 'node:crypto';
import { type Client, Routes } from 'discord.js';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import type { ModelCatalog } from '../../model-catalog/model-catalog.ts';
import { logChannelOf } from '../../place-settings/effective-settings.ts';
import { channelGoneCodes, describeDiscordError, isDiscordCode } from '../discord-errors.ts';
import { type LogBatch, nextBatch, postBody } from './log-batch.ts';

/** Missing Permissions (50013) besides the channel gone or out of sight: the log channel is unusable. */
const unusableCodes = [...channelGoneCodes, 50013, 10004];

export class LogPoster {
  private timer: NodeJS.Timeout | null = null;
  private posting: Promise<void> | null = null;
  private stopped = false;
  /** Servers whose log channel the bot cannot post in, with the channel and why: not tried again until it changes. */
  private readonly problems = new Map<string, { channelId: string; problem: string }>();
  /** Round robin: the next post goes to the server after the last one served. */
  private lastGuild = '';

  constructor(
    private readonly client: Client<true>,
    private readonly options: { store: Store; models: Pick<ModelCatalog, 'entry'>; logger: Logger; paceMs: number },
  ) {}

  /** Something was owed: posts it after the pace, unless a post is already due. */
  wake(): void {
    if (this.timer || this.stopped) return;
    const delay = this.options.paceMs * (1 + Math.random() / 2);
    this.timer = setTimeout(() => {
      this.posting = this.postNext()
        .catch((error: unknown) => this.options.logger.error({ err: error }, 'the log channel poster failed'))
        .finally(() => {
          this.timer = null;
          this.posting = null;
          if (this.owesCards()) this.wake();
        });
    }, delay);
    this.timer.unref();
  }

  problemOf(guildId: string): string | null {
    return this.problems.get(guildId)?.problem ?? null;
  }

  forgetProblem(guildId: string): void {
    this.problems.delete(guildId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer && !this.posting) clearTimeout(this.timer);
    await this.posting;
  }

  /** Servers of this process's shards owed cards, whose log channel is set and not known unusable. */
  private servable(): { guildId: string; channelId: string }[] {
    const { store } = this.options;
    // Shard processes may share one database: each posts for its own servers only.
    const ours = store.logOutbox.guilds().filter((guildId) => this.client.guilds.cache.has(guildId));
    return ours.flatMap((guildId) => {
      const channelId = logChannelOf(store.placeSettings, guildId);
      if (!channelId) {
        store.logOutbox.removeGuild(guildId); // Logging stopped since these were owed.
        return [];
      }
      return this.problems.get(guildId)?.channelId === channelId ? [] : [{ guildId, channelId }];
    });
  }

  private owesCards(): boolean {
    return !this.stopped && this.servable().length > 0;
  }

  /** Whether half of this second's global REST budget is left for answers (discord.js keeps the count). */
  private budgetLeft(): boolean {
    // @discordjs/rest REST#globalRemaining and #globalReset: the requests left in the current second, and when it ends.
    // https://github.com/discordjs/discord.js/blob/main/packages/rest/src/lib/REST.ts
    const rest = this.client.rest;
    const perSecond = rest.options.globalRequestsPerSecond;
    return Date.now() >= rest.globalReset || rest.globalRemaining > perSecond / 2;
  }

  private async postNext(): Promise<void> {
    if (this.stopped || !this.budgetLeft()) return;
    const servable = this.servable();
    const next = servable.find((candidate) => candidate.guildId > this.lastGuild) ?? servable[0];
    if (!next) return;
    this.lastGuild = next.guildId;
    const { store, models } = this.options;
    const batch = nextBatch(store.logOutbox, next.guildId, { store, models });
    if (!batch) return;
    if (batch.cards.length === 0) return store.logOutbox.remove(batch.settles);
    await this.post(next.guildId, next.channelId, batch);
  }

  private async post(guildId: string, channelId: string, batch: LogBatch): Promise<void> {
    const { store, logger } = this.options;
    // The same rows, the same nonce: a post retried after a crash is not shown twice (Discord keeps nonces a few minutes).
    const nonce = createHash('sha256')
      .update(`log:${batch.settles.join(',')}`)
      .digest('base64url')
      .slice(0, 25);
    try {
      await this.client.rest.post(Routes.channelMessages(channelId), { body: postBody(batch, nonce) });
      store.logOutbox.remove(batch.settles);
    } catch (error) {
      if (isDiscordCode(error, unusableCodes)) {
        const problem = `I cannot post in the log channel <#${channelId}>: ${describeDiscordError(error)}.`;
        this.problems.set(guildId, { channelId, problem });
        logger.warn({ guildId, channelId, cause: describeDiscordError(error) }, 'cannot post in the log channel');
      } else if (isDiscordCode(error, [50035])) {
        // Invalid Form Body: these cards would fail every time; the step log keeps what they showed.
        store.logOutbox.remove(batch.settles);
        logger.error({ err: error, guildId, channelId }, 'a log card was refused by Discord and dropped');
      } else logger.warn({ err: error, guildId, channelId }, 'could not post to the log channel; trying again');
    }
  }
}
