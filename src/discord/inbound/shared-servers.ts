/**
 * Whether a person shares a server with the bot: a DM is answered only then, so that the bot serves
 * the communities it is in and not the whole of Discord (src/discord/inbound/direct-messages.ts).
 *
 * The bot's servers come from REST (`GET /users/@me/guilds`), not from this process's cache: under a
 * shard manager a process holds the servers of its own shards only, and DMs all arrive on shard 0
 * (https://discord.com/developers/docs/events/gateway#sharding: "DMs will only be sent to shard 0").
 * Membership is read from the member cache, else asked of REST (`GET /guilds/{id}/members/{user}`),
 * which answers for any server whatever shard holds it. The cost: a person's first DM takes up to
 * one request per server of the bot (fewer when found early); the verdict is remembered, an hour
 * when they share one, ten minutes when not (one who joins a server is answered soon after).
 */
import { type APIPartialGuild, type Client, RESTJSONErrorCodes, Routes } from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import { isDiscordCode } from '../discord-errors.ts';

const sharesForMs = 60 * 60_000;
const sharesNotForMs = 10 * 60_000;
/** The bot's server list is read again at most this often. */
const serversForMs = 10 * 60_000;
/** Discord's largest page of `GET /users/@me/guilds`. */
const pageSize = 200;

export class SharedServers {
  private readonly verdicts = new Map<string, { shares: boolean; until: number }>();
  private servers: { ids: string[]; until: number } | null = null;

  constructor(
    private readonly client: Client<true>,
    /** ALLOWED_GUILD_IDS: only these servers count (empty: all). */
    private readonly allowedGuildIds: readonly string[],
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `userId` is a member of one of the bot's (allowed) servers. */
  async shareOne(userId: string): Promise<boolean> {
    const now = this.now();
    const known = this.verdicts.get(userId);
    if (known && known.until > now) return known.shares;
    const { shares, sure } = await this.lookUp(userId);
    if (this.verdicts.size >= 1000)
      for (const [id, verdict] of this.verdicts) if (verdict.until <= now) this.verdicts.delete(id);
    // A "no" that a failed request may have caused is not remembered: the next DM asks again.
    if (shares || sure) this.verdicts.set(userId, { shares, until: now + (shares ? sharesForMs : sharesNotForMs) });
    return shares;
  }

  private async lookUp(userId: string): Promise<{ shares: boolean; sure: boolean }> {
    const ids = await this.serverIds();
    // The member cache first: no request for a member seen lately.
    if (ids.some((id) => this.client.guilds.cache.get(id)?.members.cache.has(userId)))
      return { shares: true, sure: true };
    let sure = true;
    for (const guildId of ids) {
      try {
        await this.client.rest.get(Routes.guildMember(guildId, userId));
        return { shares: true, sure: true };
      } catch (error) {
        if (isDiscordCode(error, [RESTJSONErrorCodes.UnknownMember, RESTJSONErrorCodes.UnknownUser])) continue;
        // Not known either way (a network failure, say): the next server may still say yes.
        this.logger.warn({ err: error, guildId }, 'could not check a server membership for a DM');
        sure = false;
      }
    }
    return { shares: false, sure };
  }

  /** The bot's servers, from every shard, cached ones first; only the allowed ones. */
  private async serverIds(): Promise<string[]> {
    const now = this.now();
    if (this.servers && this.servers.until > now) return this.servers.ids;
    const all = new Set(this.client.guilds.cache.keys());
    const allowed = (ids: Iterable<string>) =>
      [...ids].filter((id) => this.allowedGuildIds.length === 0 || this.allowedGuildIds.includes(id));
    try {
      for (const id of await this.listedServerIds()) all.add(id);
    } catch (error) {
      // This process's own servers still count; the list is asked for again at the next DM.
      this.logger.warn({ err: error }, "could not list the bot's servers for a DM: those of this process only");
      return allowed(all);
    }
    this.servers = { ids: allowed(all), until: now + serversForMs };
    return this.servers.ids;
  }

  /** Every server of the bot, as REST lists them, a page of 200 at a time. */
  private async listedServerIds(): Promise<string[]> {
    const ids: string[] = [];
    let after: string | null = null;
    for (;;) {
      const query = new URLSearchParams({ limit: String(pageSize), ...(after ? { after } : {}) });
      const page = (await this.client.rest.get(Routes.userGuilds(), { query })) as APIPartialGuild[];
      ids.push(...page.map((guild) => guild.id));
      if (page.length < pageSize) return ids;
      after = page.at(-1)!.id;
    }
  }
}
