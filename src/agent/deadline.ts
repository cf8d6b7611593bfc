/**
 * A time limit under a parent signal: it fires when the parent fires or its time runs out,
 * whichever comes first. One timer and one listener on the parent; `dispose()` takes both away, so
 * that a long run does not collect listeners. Cheaper than `AbortSignal.any` with
 * `AbortSignal.timeout`, and its AbortSignal is only made when someone asks for it: a tool turn
 * races its calls with `race` and most tools never read their signal (making one took a tenth of
 * the agent loop's own CPU, BENCHMARKS.md).
 */
export interface Deadline {
  /** Aborted when the deadline fires, with its reason (made at the first read). */
  readonly signal: AbortSignal;
  /** True when the time ran out (rather than the parent firing). */
  readonly expired: boolean;
  /** Settles with `work`, or rejects with the deadline's reason as soon as it fires; `work`'s later rejection is swallowed. */
  race<T>(work: Promise<T>): Promise<T>;
  dispose(): void;
}

export function deadline(timeoutMs: number, parent?: AbortSignal): Deadline {
  let fired: { reason: unknown } | null = null;
  let expired = false;
  let controller: AbortController | null = null;
  const racing = new Set<(reason: unknown) => void>();
  const fire = (reason: unknown) => {
    if (fired) return;
    fired = { reason };
    controller?.abort(reason);
    for (const stop of racing) stop(reason);
    racing.clear();
  };
  const onParentAbort = () => fire(parent?.reason);
  const timer = setTimeout(() => {
    expired = true;
    fire(new DOMException(`time limit of ${timeoutMs} ms reached`, 'TimeoutError'));
  }, timeoutMs);
  timer.unref?.();
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (fired) controller.abort(fired.reason);
      }
      return controller.signal;
    },
    get expired() {
      return expired;
    },
    race: (work) => raceWith(work, fired, racing),
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
      racing.clear();
    },
  };
}

function raceWith<T>(
  work: Promise<T>,
  fired: { reason: unknown } | null,
  racing: Set<(reason: unknown) => void>,
): Promise<T> {
  if (fired) {
    work.catch(() => {});
    return Promise.reject(fired.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = (reason: unknown) => {
      work.catch(() => {});
      reject(reason);
    };
    racing.add(stop);
    work.then(
      (value) => {
        racing.delete(stop);
        resolve(value);
      },
      (error: unknown) => {
        racing.delete(stop);
        reject(error);
      },
    );
  });
}
