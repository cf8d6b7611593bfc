import { z } from 'zod';
import { defineTool } from './define-tool.ts';

/** True for a time zone the runtime knows by its IANA name, such as "Europe/Paris" or "UTC". */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const currentTime = defineTool({
  name: 'current_time',
  description: 'The current date and time in an IANA time zone (for example "America/New_York"), or in UTC.',
  parameters: z.object({
    time_zone: z
      .string()
      .refine(isTimeZone, 'not an IANA time zone name; use a name like "Europe/Paris", "Asia/Tokyo" or "UTC"')
      .nullable()
      .describe('IANA time zone name, or null for UTC.'),
  }),
  execute({ time_zone }) {
    return describeTime(new Date(), time_zone ?? 'UTC');
  },
});

/** The same instant as a sentence for people, an ISO 8601 local time with its offset, and the zone. */
export function describeTime(
  now: Date,
  timeZone: string,
): { time_zone: string; local: string; readable: string; utc: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  const readable = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    dateStyle: 'full',
    timeStyle: 'long',
  }).format(now);
  return {
    time_zone: timeZone,
    local: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`,
    readable,
    utc: now.toISOString(),
  };
}
