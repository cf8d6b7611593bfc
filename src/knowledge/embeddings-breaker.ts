/**
 * A circuit breaker in front of the embedding server: once it fails as a server that is down or
 * overloaded does (refused, timed out, a 5xx, a 429), searches skip vectors at once for a cooldown
 * (keywords alone) instead of each waiting for a request to fail. After the cooldown one request
 * is let through as a trial: its success closes the breaker (and `onClose` runs: the documents
 * added meanwhile get embedded), its failure opens it for another cooldown. Logged once per
 * opening and once per closing, not per search. Used by knowledge-base.ts.
 */
import type { Logger } from '../agent/logger.ts';

/** How long vectors are skipped after the embedding server failed, before one trial request. */
const embeddingsCooldownMs = 60_000;

export class EmbeddingsBreaker {
  /** null: closed (requests go); else when the next trial may go. */
  private openUntil: number | null = null;
  private trialInFlight = false;

  constructor(
    private readonly options: {
      now: () => number;
      logger: Logger;
      cooldownMs?: number;
      /** Runs when a success closes the breaker after it was open. */
      onClose?: () => void;
    },
  ) {}

  /** Whether a request may go now: the breaker is closed, or its cooldown is over and no trial is out. */
  allows(): boolean {
    if (this.openUntil === null) return true;
    if (this.trialInFlight || this.options.now() < this.openUntil) return false;
    this.trialInFlight = true;
    return true;
  }

  /** A request succeeded: the breaker closes, if it was open. */
  succeeded(): void {
    this.trialInFlight = false;
    if (this.openUntil === null) return;
    this.openUntil = null;
    this.options.logger.info({}, 'the embedding server answers again: knowledge searches use vectors again');
    this.options.onClose?.();
  }

  /** A request failed: an outage opens the breaker for a cooldown; another failure (a refused key, say) does not. */
  failed(error: unknown, outage: boolean): void {
    this.trialInFlight = false;
    if (!outage) return;
    const wasClosed = this.openUntil === null;
    const cooldownMs = this.options.cooldownMs ?? embeddingsCooldownMs;
    this.openUntil = this.options.now() + cooldownMs;
    if (wasClosed)
      this.options.logger.warn(
        { err: error, cooldownSeconds: cooldownMs / 1000 },
        'the embedding server failed: knowledge searches go by keywords alone until it answers again',
      );
  }
}
