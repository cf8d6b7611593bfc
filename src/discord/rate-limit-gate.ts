import type { SendableChannels } from 'discord.js';
import type { Logger } from '../agent/logger.ts';
import { formatWait } from '../agent/model-error.ts';
import { sendText } from './send.ts';

/**
 * Holds runs back while the model service has asked for a long pause, instead of letting every
 * waiting thread fail in turn. Each conversation is told once per pause when its answer will come.
 */
export class RateLimitGate {
  private until = 0;
  private readonly told = new Set<string>();

  constructor(private readonly logger: Logger, private readonly now: () => number = Date.now) {}

  /** Records a pause the model service asked for; the conversation that met it was told by its run. */
  rateLimited(retryAfterSeconds: number, conversationKey: string): void {
    const until = this.now() + retryAfterSeconds * 1000;
    if (until <= this.until) return;
    this.until = until;
    this.told.clear();
    this.told.add(conversationKey);
    this.logger.warn({ retryAfterSeconds }, 'model rate-limited: holding runs back');
  }

  /** Resolves once the model may be called; tells the conversation once if it must wait. */
  async waitForModel(conversationKey: string, channel: SendableChannels, signal: AbortSignal): Promise<void> {
    const wait = this.until - this.now();
    if (wait <= 0) return;
    if (!this.told.has(conversationKey)) {
      this.told.add(conversationKey);
      const text = `The model is rate-limited right now. I will answer here in about ${formatWait(wait / 1000)}.`;
      await sendText(channel, text, { nonceSeed: `${conversationKey}:rate-limited:${this.until}` }).catch((error: unknown) =>
        this.logger.warn({ err: error, conversation: conversationKey }, 'could not post the rate-limit notice'),
      );
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
}
