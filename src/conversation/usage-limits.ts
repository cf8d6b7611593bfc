import type { Store } from '../../db/store.ts';
import { userInstallServerId } from '../../db/conversations.ts';
import { formatWait } from '../text/duration.ts';
import { formatCount } from '../text/count.ts';

export interface UsageLimitSettings {
  userMessagesPerMinute: number;
  dailyTokenBudget: number;
  /** Tokens all direct-message conversations together may use per day (DM_DAILY_TOKENS); 0 or absent: no limit. */
  dmDailyTokens?: number;
  /** Tokens all servers and direct messages together may use per day (TOTAL_DAILY_TOKENS); 0 or absent: no limit. */
  totalDailyTokens?: number;
  /** Tokens all user-installed use together (USER_INSTALL_DAILY_TOKENS: its server id `userInstallServerId`); 0 or absent: no limit. */
  userInstallDailyTokens?: number;
}

export type LimitVerdict = { ok: true } | { ok: false; tell: boolean; message: string };

/**
 * The per-user message rate (a sliding minute) and the daily token budget (UTC days) of the place:
 * a server's, or the one all direct messages share (a null server: no server's budget covers them).
 * Past either, the person is told once per window when it resets, and no model call is made.
 */
export class UsageLimits {
  private readonly recent = new Map<string, number[]>();
  private readonly told = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly settings: UsageLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  check(userId: string, guildId: string | null): LimitVerdict {
    const now = this.now();
    this.forgetIdle(now);
    const budget = this.budget(userId, guildId, now);
    if (!budget.ok) return budget;
    if (this.settings.userMessagesPerMinute > 0) {
      const times = (this.recent.get(userId) ?? []).filter((time) => time > now - 60_000);
      if (times.length >= this.settings.userMessagesPerMinute) {
        this.recent.set(userId, times);
        return this.refuse(
          `rate:${userId}`,
          times[0]! + 60_000,
          now,
          `You have sent ${this.settings.userMessagesPerMinute} messages in the last minute.`,
        );
      }
      times.push(now);
      this.recent.set(userId, times);
    }
    return { ok: true };
  }

  /**
   * The budget again, when a run's first model call has its turn: messages that arrived together
   * all passed `check` before any run was charged. Runs already under way finish.
   */
  admitRun(userId: string, guildId: string | null): LimitVerdict {
    return this.budget(userId, guildId, this.now());
  }

  /** Whether the daily token budget of the server (or of direct messages: null) has tokens left, for work no person asked for: memory summaries. */
  budgetLeft(guildId: string | null): boolean {
    return this.spentBudget(guildId, Math.floor(this.now() / 86_400_000) * 86_400_000) === null;
  }

  /**
   * The daily token budget of the server, or of direct messages (null), and the ceiling over all of
   * them (TOTAL_DAILY_TOKENS): spent, the person is told once when it resets.
   */
  private budget(userId: string, guildId: string | null, now: number): LimitVerdict {
    const dayStart = Math.floor(now / 86_400_000) * 86_400_000;
    const why = this.spentBudget(guildId, dayStart);
    if (why === null) return { ok: true };
    return this.refuse(`budget:${guildId ?? 'dm'}:${userId}`, dayStart + 86_400_000, now, why);
  }

  /** Why no tokens are left today for the place (the first budget spent, in words), or null. */
  private spentBudget(guildId: string | null, dayStart: number): string | null {
    const { runs } = this.store;
    const limit = this.limitOf(guildId);
    const spent = () =>
      guildId === null ? runs.directMessageTokensOnDay(dayStart) : runs.tokensOnDay(guildId, dayStart);
    if (limit > 0 && spent() >= limit)
      return guildId === null
        ? `Direct messages to me have used their ${formatCount(limit)} tokens for today.`
        : guildId === userInstallServerId
          ? `My user-installed use (where no server added me) has used its ${formatCount(limit)} tokens for today.`
          : `This server has used its ${formatCount(limit)} tokens for today.`;
    const ceiling = this.settings.totalDailyTokens ?? 0;
    if (ceiling > 0 && runs.allTokensOnDay(dayStart) >= ceiling)
      return `I have used all ${formatCount(ceiling)} tokens the operator gives me for today, in every server together.`;
    return null;
  }

  /** The daily budget of the place: direct messages', user-installed use's, or a server's. */
  private limitOf(guildId: string | null): number {
    if (guildId === null) return this.settings.dmDailyTokens ?? 0;
    if (guildId === userInstallServerId) return this.settings.userInstallDailyTokens ?? 0;
    return this.settings.dailyTokenBudget;
  }

  private refuse(key: string, resetsAt: number, now: number, why: string): LimitVerdict {
    const tell = (this.told.get(key) ?? 0) < now;
    if (tell) this.told.set(key, resetsAt);
    const when = `<t:${Math.floor(resetsAt / 1000)}:R> (in about ${formatWait((resetsAt - now) / 1000)})`;
    return { ok: false, tell, message: `${why} I will answer again ${when}.` };
  }

  /** Drops what no longer matters, so the maps do not grow with everyone ever seen. */
  private forgetIdle(now: number): void {
    if (this.recent.size >= 1000)
      for (const [user, times] of this.recent)
        if (times.every((time) => time <= now - 60_000)) this.recent.delete(user);
    if (this.told.size >= 1000) for (const [key, until] of this.told) if (until < now) this.told.delete(key);
  }
}
