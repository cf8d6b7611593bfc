import type { ModelClient } from './model-client.ts';

/**
 * Lets at most `limit` model calls run at once across every conversation; the others wait their
 * turn, in order. A call whose signal fires while it waits leaves the line at once.
 */
export function limitModelCalls(client: ModelClient, limit: number): ModelClient & { readonly active: number; readonly waiting: number } {
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

  return {
    model: client.model,
    get active() {
      return active;
    },
    get waiting() {
      return waiting.length;
    },
    async complete(request, signal) {
      await acquire(signal);
      try {
        return await client.complete(request, signal);
      } finally {
        release();
      }
    },
  };
}
