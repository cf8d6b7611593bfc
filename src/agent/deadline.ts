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
  /**
   * Stops the clock until the returned function is called (once): the time a person takes to
   * answer a question a tool asked them is not the tool's. Holds may overlap; the clock runs again
   * with the time it had left once none is held. The parent's signal still fires meanwhile.
   */
  hold(): () => void;
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
  const clock = timeClock(timeoutMs, () => {
    expired = true;
    fire(new DOMException(`time limit of ${timeoutMs} ms reached`, 'TimeoutError'));
  });
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
    hold: () => clock.hold(),
    dispose() {
      clock.stop();
      parent?.removeEventListener('abort', onParentAbort);
      racing.clear();
    },
  };
}

/** The timer of a deadline: `expire` after `timeoutMs` of time not held. */
function timeClock(timeoutMs: number, expire: () => void) {
  let left = timeoutMs;
  let armedAt = performance.now();
  let holds = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** Expired, or disposed of: never armed again. */
  let stopped = false;
  const arm = () => {
    armedAt = performance.now();
    timer = setTimeout(() => {
      timer = null;
      stopped = true;
      expire();
    }, left);
    timer.unref?.();
  };
  arm();
  return {
    hold(): () => void {
      if (holds++ === 0 && timer !== null) {
        clearTimeout(timer);
        timer = null;
        left = Math.max(0, left - (performance.now() - armedAt));
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holds === 0 && !stopped) arm();
      };
    },
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
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
