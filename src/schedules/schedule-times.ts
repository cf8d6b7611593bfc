/**
 * When a schedule runs: the words moderators write (`daily 09:00`, `weekdays 09:00`, `every 6h`,
 * `mondays 18:00`) or a five-field cron expression, read in an IANA time zone, and the next time
 * after a moment. The times themselves are croner's (https://croner.56k.guru/usage/pattern/),
 * which knows time zones and their daylight-saving changes.
 */
import { Cron } from 'croner';

/** A schedule's times: the cron expression they come to, in its time zone. */
export interface ScheduleTimes {
  cron: string;
  timeZone: string;
}

/** The least time between two runs of one schedule: a cron expression cannot ask for more. */
const minimumGapMs = 15 * 60_000;

const weekdays: Record<string, string> = {
  mondays: '1',
  tuesdays: '2',
  wednesdays: '3',
  thursdays: '4',
  fridays: '5',
  saturdays: '6',
  sundays: '0',
  weekdays: '1-5',
  weekends: '0,6',
  daily: '*',
};

/** Reads `when` in `timeZone`; a string says what is wrong with it (shown to the moderator). */
export function readScheduleTimes(when: string, timeZone = 'UTC'): ScheduleTimes | string {
  const cron = cronOf(when.trim().toLowerCase().replace(/\s+/g, ' '));
  if (cron === null)
    return 'I read `daily 09:00`, `weekdays 09:00`, `mondays 18:00`, `every 6h` or a cron expression of five fields (minute hour day month weekday).';
  let runs: Date[];
  try {
    runs = new Cron(cron, { timezone: timeZone, paused: true }).nextRuns(3);
  } catch (error) {
    const zoneProblem = error instanceof Error && /timezone/i.test(error.message);
    return zoneProblem
      ? `\`${timeZone}\` is not an IANA time zone (for example \`Europe/Paris\` or \`America/New_York\`).`
      : `That cron expression does not read: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (runs.length === 0) return 'That never comes.';
  for (let index = 1; index < runs.length; index += 1)
    if (runs[index]!.getTime() - runs[index - 1]!.getTime() < minimumGapMs)
      return `A schedule runs at most every ${minimumGapMs / 60_000} minutes.`;
  return { cron, timeZone };
}

/** The cron expression the words come to, or null when they are none of the forms read. */
function cronOf(when: string): string | null {
  const every = /^every (\d{1,2}) ?h(ours?)?$/.exec(when);
  if (every) {
    const hours = Number(every[1]);
    if (hours < 1 || hours > 24) return null;
    return hours === 24 ? '0 0 * * *' : `0 */${hours} * * *`;
  }
  const atTime = /^([a-z]+) (\d{1,2}):(\d{2})$/.exec(when);
  if (atTime) {
    const days = weekdays[atTime[1]!];
    const hour = Number(atTime[2]);
    const minute = Number(atTime[3]);
    if (days === undefined || hour > 23 || minute > 59) return null;
    return `${minute} ${hour} * * ${days}`;
  }
  // Five fields only: a sixth would be seconds, which no schedule needs.
  return when.split(' ').length === 5 && /^[\d*/,\-a-z ]+$/.test(when) ? when : null;
}

/** The first time after `after` (ms) the schedule runs, or null if it never does again. */
export function nextTimeAfter(times: ScheduleTimes, after: number): number | null {
  const next = new Cron(times.cron, { timezone: times.timeZone, paused: true }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}
