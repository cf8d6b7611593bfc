import type { Logger } from '../agent/logger.ts';
import { formatWait } from '../text/duration.ts';

/**
 * Holds runs back while the model service has asked for a long pause, instead of letting every
 * waiting thread fail in turn. Each conversation is told once per pause when its answer will come.
 */
export class RateLimitGate {
  private until = 0;
  private readonly told = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a pause the model service asked for; the conversation that met it was told by its run. */
  rateLimited(retryAfterSeconds: number, conversationKey: string): void {
    const now = this.now();
    const until = now + retryAfterSeconds * 1000;
    if (until <= this.until) return;
    // A new pause (not an extension of the current one) is news to every conversation.
    if (this.until <= now) this.told.clear();
    this.until = until;
    this.told.add(conversationKey);
    this.logger.warn({ retryAfterSeconds }, 'model rate-limited: holding runs back');
  }

  /**
   * Resolves once the model may be called (or `signal` fires). A conversation that must wait is
   * told once per pause through `tell` (its text, and a key that is the same for the same pause).
   */
  async waitForModel(
    conversationKey: string,
    tell: (text: string, onceKey: string) => Promise<unknown>,
    signal: AbortSignal,
  ): Promise<void> {
    for (let wait = this.until - this.now(); wait > 0 && !signal.aborted; wait = this.until - this.now()) {
      if (!this.told.has(conversationKey)) {
        this.told.add(conversationKey);
        const text = `The model is rate-limited right now. I will answer here in about ${formatWait(wait / 1000)}.`;
        await tell(text, `${conversationKey}:rate-limited:${this.until}`).catch((error: unknown) =>
          this.logger.warn({ err: error, conversation: conversationKey }, 'could not post the rate-limit notice'),
        );
      }
      await sleep(wait, signal);
    }
  }
}

/** One gate per model (by name): a long rate limit of one server holds back the runs of its model only. */
export class ModelGates {
  private readonly gates = new Map<string, RateLimitGate>();

  constructor(private readonly logger: Logger) {}

  /** The gate of `modelName`, made at its first use. */
  of(modelName: string): RateLimitGate {
    let gate = this.gates.get(modelName);
    if (!gate) this.gates.set(modelName, (gate = new RateLimitGate(this.logger)));
    return gate;
  }
}

/** Waits `ms`, or less if `signal` fires; leaves no listener behind. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
