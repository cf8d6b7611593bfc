/**
 * The bot's one scheduler: a single loop whose pass posts the reminders that fell due
 * (reminder-scheduler.ts) and starts the scheduled runs whose time came (scheduled-runs.ts). Started
 * by src/discord/bot.ts once connected; its pass is one at a time, on a timer and on demand
 * (`tick()`, which tests use instead of waiting).
 */
import type { Logger } from '../../agent/logger.ts';
import { type ReminderPass, reminderPass } from './reminder-scheduler.ts';
import { type RepeatedPasses, repeatPasses } from '../../schedules/repeated-passes.ts';
import { type ScheduledOutcome, type ScheduledRunDependencies, scheduledRunPass } from './scheduled-runs.ts';

/** What one pass did: each due reminder (`outcomes`, as the reminder scheduler says), each scheduled run started. */
interface SchedulerPass extends ReminderPass {
  scheduled: ScheduledOutcome[];
}

export type Scheduler = RepeatedPasses<SchedulerPass>;

/** Starts the loop: a pass now, then every `intervalMs`. */
export function startScheduler(
  deps: Omit<ScheduledRunDependencies, 'now'> & {
    store: ScheduledRunDependencies['store'] & { reminders: Parameters<typeof reminderPass>[1] };
  },
  { intervalMs = 15_000, now = Date.now }: { intervalMs?: number; now?: () => number } = {},
): Scheduler {
  const reminders = reminderPass(deps.client, deps.store.reminders, deps.instanceId, deps.logger, now);
  const logger: Logger = deps.logger;
  return repeatPasses(async () => {
    const { outcomes } = await reminders();
    let scheduled: ScheduledOutcome[] = [];
    try {
      scheduled = await scheduledRunPass({ ...deps, now });
    } catch (error) {
      logger.error({ err: error }, 'starting scheduled runs failed');
    }
    return { outcomes, scheduled };
  }, intervalMs);
}
