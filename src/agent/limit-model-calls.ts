import type { ModelClient, ModelRequest } from './model-client.ts';

export interface LimitedModelClient extends ModelClient {
  readonly active: number;
  readonly waiting: number;
  /**
   * The same line of calls, with `admit` run when a call's turn has come, just before it is made:
   * it may throw to refuse the call (the turn passes on). Checks that depend on what the calls
   * ahead spent (a token budget) belong here, not before the wait.
   */
  admitting(admit: () => void): ModelClient;
}

/**
 * Lets at most `limit` model calls run at once across every conversation; the others wait their
 * turn, in order. A call whose signal fires while it waits leaves the line at once.
 */
export function limitModelCalls(client: ModelClient, limit: number): LimitedModelClient {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    active -= 1;
    waiting.shift()?.();
  };
  const acquire = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (active < limit) {
        active += 1;
        return resolve();
      }
      const onAbort = () => {
        waiting.splice(waiting.indexOf(grant), 1);
        reject(signal.reason);
      };
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        active += 1;
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push(grant);
    });

  const complete = async (request: ModelRequest, signal: AbortSignal, admit?: () => void) => {
    await acquire(signal);
    try {
      admit?.();
      return await client.complete(request, signal);
    } finally {
      // The turn passes on once the caller has taken in this answer (its usage recorded), so that
      // the next call's admission sees what the calls ahead spent.
      setImmediate(release);
    }
  };
  return {
    model: client.model,
    get active() {
      return active;
    },
    get waiting() {
      return waiting.length;
    },
    complete: (request, signal) => complete(request, signal),
    admitting: (admit) => ({ model: client.model, complete: (request, signal) => complete(request, signal, admit) }),
  };
}
