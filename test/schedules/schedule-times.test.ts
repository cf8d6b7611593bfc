/** When a schedule runs: the words moderators write, cron expressions, time zones and their daylight-saving changes. */
import { describe, expect, it } from 'vitest';
import { nextTimeAfter, readScheduleTimes } from '../../src/schedules/schedule-times.ts';

const utc = (iso: string) => Date.parse(iso);

describe('readScheduleTimes', () => {
  it('reads the words moderators write as cron expressions', () => {
    expect(readScheduleTimes('daily 09:00')).toEqual({ cron: '0 9 * * *', timeZone: 'UTC' });
    expect(readScheduleTimes('Weekdays  9:30', 'Europe/Paris')).toEqual({
      cron: '30 9 * * 1-5',
      timeZone: 'Europe/Paris',
    });
    expect(readScheduleTimes('mondays 18:00')).toEqual({ cron: '0 18 * * 1', timeZone: 'UTC' });
    expect(readScheduleTimes('every 6h')).toEqual({ cron: '0 */6 * * *', timeZone: 'UTC' });
    expect(readScheduleTimes('30 8 1 * *')).toEqual({ cron: '30 8 1 * *', timeZone: 'UTC' });
  });

  it('refuses what it cannot read, seconds, times too close together, and a zone that is none', () => {
    expect(readScheduleTimes('daily 25:00')).toMatch(/^I read/);
    expect(readScheduleTimes('every 0h')).toMatch(/^I read/);
    expect(readScheduleTimes('0 0 9 * * *')).toMatch(/^I read/);
    expect(readScheduleTimes('*/5 * * * *')).toBe('A schedule runs at most every 15 minutes.');
    expect(readScheduleTimes('daily 09:00', 'Nowhere/Town')).toMatch(/is not an IANA time zone/);
  });
});

describe('nextTimeAfter', () => {
  it("follows the zone's daylight-saving change: 09:00 in Paris is 08:00 UTC in winter, 07:00 in summer", () => {
    const times = { cron: '0 9 * * *', timeZone: 'Europe/Paris' };
    expect(nextTimeAfter(times, utc('2026-03-28T10:00:00Z'))).toBe(utc('2026-03-29T07:00:00Z'));
    expect(nextTimeAfter(times, utc('2026-03-27T10:00:00Z'))).toBe(utc('2026-03-28T08:00:00Z'));
  });

  it('weekdays skip the weekend', () => {
    // Friday 2026-11-27 after 09:00: next is Monday the 30th.
    expect(nextTimeAfter({ cron: '0 9 * * 1-5', timeZone: 'UTC' }, utc('2026-11-27T10:00:00Z'))).toBe(
      utc('2026-11-30T09:00:00Z'),
    );
  });
});
