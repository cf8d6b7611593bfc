import type { ModelCallObserver, ModelClient, ModelRequest } from './model-client.ts';

/** A turn to call the model, held by a run before its first call. */
interface ModelTurn {
  /** The client whose first call spends this turn (later calls wait in line as usual). */
  readonly client: ModelClient;
  /** Gives the turn back unspent (a run refused, or ended before its first call); no-op once spent. */
  release(): void;
}

export interface LimitedModelClient extends ModelClient {
  readonly active: number;
  readonly waiting: number;
  /**
   * Waits in the same line for a turn and holds it, so that the caller can check what depends on
   * what the calls ahead spent (a token budget) before it calls: then it spends the turn on its
   * first call, or releases it. Rejects with the signal's reason if the signal fires first.
   */
  turn(signal: AbortSignal): Promise<ModelTurn>;
}

/**
 * Lets at most `limit` model calls run at once across every conversation; the others wait their
 * turn, in order. A call whose signal fires while it waits leaves the line at once.
 */
export function limitModelCalls(client: ModelClient, limit: number): LimitedModelClient {
  return modelCallLine(limit).limit(client);
}

/**
 * One line for several clients (one per model): at most `limit` calls at once across all of them,
 * so that MAX_CONCURRENT_RUNS means the same however many models the operator offers.
 */
export function modelCallLine(limit: number): { limit(client: ModelClient): LimitedModelClient } {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    active -= 1;
    waiting.shift()?.();
  };
  const acquire = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
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
    limit: (client) => limitedClient(client, { acquire, release, counts: () => ({ active, waiting: waiting.length }) }),
  };
}

/** A client whose calls wait for a turn in a shared line. */
function limitedClient(
  client: ModelClient,
  line: {
    acquire: (signal: AbortSignal) => Promise<void>;
    release: () => void;
    counts: () => { active: number; waiting: number };
  },
): LimitedModelClient {
  const { acquire, release } = line;
  /** Makes a call in a turn already held; the turn passes on after it. */
  const callHolding = async (request: ModelRequest, signal: AbortSignal, observe?: ModelCallObserver) => {
    try {
      return await client.complete(request, signal, observe);
    } finally {
      // The turn passes on once the caller has taken in this answer (its usage recorded), so that
      // the next run's admission sees what the calls ahead spent.
      setImmediate(release);
    }
  };
  const complete = async (request: ModelRequest, signal: AbortSignal, observe?: ModelCallObserver) => {
    await acquire(signal);
    return callHolding(request, signal, observe);
  };

  return {
    model: client.model,
    get active() {
      return line.counts().active;
    },
    get waiting() {
      return line.counts().waiting;
    },
    complete,
    async turn(signal) {
      await acquire(signal);
      let held = true;
      return {
        client: {
          model: client.model,
          complete: (request, callSignal, observe) => {
            if (!held) return complete(request, callSignal, observe);
            held = false;
            return callHolding(request, callSignal, observe);
          },
        },
        release() {
          if (!held) return;
          held = false;
          release();
        },
      };
    },
  };
}
