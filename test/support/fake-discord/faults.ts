/**
 * Fault hooks: the next matching REST requests fail, or are rate limited with the headers and
 * body Discord sends with a 429 (https://discord.com/developers/docs/topics/rate-limits).
 */
import type { FailRule, HoldRule, RateLimitRule } from './types.ts';

/** A response the fake sends instead of the route's (`applied`: after running the route). */
export interface FaultReply {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** The route runs (its effect takes place) and this reply replaces its answer. */
  applied: boolean;
}

interface ArmedHold {
  method: string;
  path: RegExp;
  /** Matching requests still to let through before the one held. */
  skip: number;
  ms: number;
  until: Promise<unknown> | undefined;
}

interface Armed {
  method: string;
  path: RegExp;
  /** Matching requests still to let through before the first that fails. */
  skip: number;
  remaining: number;
  reply: FaultReply;
}

export class Faults {
  private readonly armed: Armed[] = [];
  private readonly holds: ArmedHold[] = [];

  failNext(rule: FailRule): void {
    this.armed.push({
      method: rule.method.toUpperCase(),
      path: rule.path,
      skip: rule.skip ?? 0,
      remaining: rule.times ?? 1,
      reply: {
        status: rule.status,
        body: rule.body ?? { message: `fake failure (${rule.status})`, code: 0 },
        headers: rule.headers ?? {},
        applied: rule.applied ?? false,
      },
    });
  }

  holdNext(rule: HoldRule): void {
    this.holds.push({
      method: rule.method.toUpperCase(),
      path: rule.path,
      skip: rule.skip ?? 0,
      ms: rule.ms,
      until: rule.until,
    });
  }

  /** Waits as long as the answer of this request, which took effect, is held (not at all: none); counts holds down. */
  async takeHold(method: string, path: string, atLeastMs: number): Promise<void> {
    const index = this.holds.findIndex((hold) => hold.method === method && hold.path.test(path));
    let held: ArmedHold | undefined;
    if (index !== -1 && this.holds[index]!.skip > 0) this.holds[index]!.skip -= 1;
    else if (index !== -1) [held] = this.holds.splice(index, 1);
    const ms = Math.max(atLeastMs, held?.ms ?? 0);
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    await held?.until;
  }

  rateLimitNext(rule: RateLimitRule): void {
    const seconds = rule.retryAfterSeconds;
    const headers: Record<string, string> = {
      'retry-after': String(seconds),
      'x-ratelimit-scope': rule.global ? 'global' : 'user',
    };
    if (rule.global) {
      headers['x-ratelimit-global'] = 'true';
    } else {
      Object.assign(headers, {
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String((Date.now() / 1000 + seconds).toFixed(3)),
        'x-ratelimit-reset-after': String(seconds),
        'x-ratelimit-bucket': 'fake-bucket',
      });
    }
    this.armed.push({
      method: rule.method.toUpperCase(),
      path: rule.path,
      skip: 0,
      remaining: 1,
      reply: {
        status: 429,
        body: { message: 'You are being rate limited.', retry_after: seconds, global: rule.global ?? false },
        headers,
        applied: false,
      },
    });
  }

  /** The fault armed for this request, if any (and counts it down). */
  take(method: string, path: string): FaultReply | undefined {
    const index = this.armed.findIndex((fault) => fault.method === method && fault.path.test(path));
    if (index === -1) return undefined;
    const fault = this.armed[index]!;
    if (fault.skip > 0) {
      fault.skip -= 1;
      return undefined;
    }
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.armed.splice(index, 1);
    return fault.reply;
  }

  /** Faults never triggered (a test that armed one most likely expected it to fire). */
  leftOver(): string[] {
    return [
      ...this.armed.map(
        (fault) => `fault for ${fault.method} ${fault.path} (status ${fault.reply.status}) never triggered`,
      ),
      ...this.holds.map((hold) => `hold for ${hold.method} ${hold.path} never triggered`),
    ];
  }
}
