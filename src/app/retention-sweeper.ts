/**
 * The retention sweeps of `npm start`: one at start, then one an hour, each in small batches with
 * the event loop free between them (db/retention.ts), so answers go on meanwhile. Nothing runs
 * when no retention setting is set. A failed sweep is logged, and the next one tries again.
 */
import { type RetentionLimits, sweepExpired } from '../../db/retention.ts';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';

const sweepEveryMs = 60 * 60 * 1000;

export function startRetentionSweeper(
  { db }: Pick<Store, 'db'>,
  limits: RetentionLimits,
  logger: Logger,
): { stop(): void } {
  if (Object.values(limits).every((days) => days === null)) return { stop() {} };
  let stopped = false;
  let sweeping = false;
  const sweep = async () => {
    if (sweeping || stopped) return;
    sweeping = true;
    try {
      const { counts, longestLockMs } = await sweepExpired(db, limits, {
        // As long a rest as the batch took (at most 50 ms): the sweep takes at most half of the
        // event loop, so an answer's steps are not queued behind batch after batch. A stop
        // mid-sweep ends it between two batches, before the database closes.
        pause: (lockMs) =>
          new Promise<void>((resolve, reject) =>
            setTimeout(() => (stopped ? reject(stopSignal) : resolve()), Math.min(Math.ceil(lockMs), 50)),
          ),
      });
      logger.info({ ...counts, longestLockMs: Math.round(longestLockMs * 10) / 10, limits }, 'retention sweep');
    } catch (error) {
      if (error !== stopSignal) logger.warn({ err: error }, 'retention sweep failed; the next one tries again');
    } finally {
      sweeping = false;
    }
  };
  const timer = setInterval(() => void sweep(), sweepEveryMs);
  timer.unref();
  void sweep();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

const stopSignal = new Error('stopped');
