/** A pass run on a timer and on demand, one pass at a time: the loop of the scheduler (src/discord/outbound/scheduler.ts). */

/** The running loop. */
export interface RepeatedPasses<Pass> {
  /** Runs a pass that starts after any pass in flight; resolves with what it did (tests wait on it). */
  tick(): Promise<Pass>;
  /** Stops the timer (a pass in flight finishes). */
  stop(): void;
}

/** Runs `pass` now and every `intervalMs`; the timer skips its turn while a pass is in flight. */
export function repeatPasses<Pass>(pass: () => Promise<Pass>, intervalMs: number): RepeatedPasses<Pass> {
  let queue: Promise<unknown> = Promise.resolve();
  let inFlight = 0;
  const tick = () => {
    inFlight += 1;
    const next = queue.then(pass).finally(() => (inFlight -= 1));
    queue = next;
    return next;
  };
  void tick();
  const timer = setInterval(() => {
    if (inFlight === 0) void tick();
  }, intervalMs);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}
