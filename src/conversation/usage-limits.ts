import type { Store } from '../../db/store.ts';
import { formatWait } from '../text/duration.ts';

export interface UsageLimitSettings {
  userMessagesPerMinute: number;
  dailyTokenBudget: number;
}

export type LimitVerdict = { ok: true } | { ok: false; tell: boolean; message: string };

/**
 * The per-user message rate (a sliding minute) and the per-server daily token budget (UTC days).
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

  check(userId: string, guildId: string): LimitVerdict {
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
    return guildId === null ? { ok: true } : this.budget(userId, guildId, this.now());
  }

  /** Whether the server's daily token budget has tokens left (for work no person asked for: memory summaries). */
  budgetLeft(guildId: string | null): boolean {
    if (guildId === null || this.settings.dailyTokenBudget <= 0) return true;
    const dayStart = Math.floor(this.now() / 86_400_000) * 86_400_000;
    return this.store.runs.tokensOnDay(guildId, dayStart) < this.settings.dailyTokenBudget;
  }

  /** The server's daily token budget (UTC days): spent, the person is told once when it resets. */
  private budget(userId: string, guildId: string, now: number): LimitVerdict {
    if (this.settings.dailyTokenBudget <= 0) return { ok: true };
    const dayStart = Math.floor(now / 86_400_000) * 86_400_000;
    if (this.store.runs.tokensOnDay(guildId, dayStart) < this.settings.dailyTokenBudget) return { ok: true };
    const why = `This server has used its ${this.settings.dailyTokenBudget.toLocaleString('en-US')} tokens for today.`;
    return this.refuse(`budget:${guildId}:${userId}`, dayStart + 86_400_000, now, why);
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
