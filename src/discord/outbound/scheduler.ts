/**
 * The bot's one scheduler: a single loop whose pass claims the due times of every schedule, the
 * moderators' routines and the members' reminders alike, and starts them (scheduled-runs.ts: a
 * routine becomes a normal run, a reminder is posted by reminder-posts.ts). Started by
 * src/discord/bot.ts once connected; its pass is one at a time, on a timer and on demand (`tick()`,
 * which tests use instead of waiting).
 */
import { type RepeatedPasses, repeatPasses } from '../../schedules/repeated-passes.ts';
import { type ScheduledOutcome, type ScheduledRunDependencies, scheduledRunPass } from './scheduled-runs.ts';

/** What one pass did: each due time it took, and what came of it. */
interface SchedulerPass {
  scheduled: ScheduledOutcome[];
}

export type Scheduler = RepeatedPasses<SchedulerPass>;

/** Starts the loop: a pass now, then every `intervalMs`. */
export function startScheduler(
  deps: Omit<ScheduledRunDependencies, 'now'>,
  { intervalMs = 15_000, now = Date.now }: { intervalMs?: number; now?: () => number } = {},
): Scheduler {
  return repeatPasses(async () => {
    try {
      return { scheduled: await scheduledRunPass({ ...deps, now }) };
    } catch (error) {
      deps.logger.error({ err: error }, 'starting scheduled runs failed');
      return { scheduled: [] };
    }
  }, intervalMs);
}
