import { describe, expect, it } from 'vitest';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import { currentTime, describeTime, isTimeZone } from '../../tools/current-time.ts';

describe('current_time', () => {
  const instant = new Date('2026-11-22T12:34:56Z');

  it('gives the local time with its offset in an IANA zone', () => {
    expect(describeTime(instant, 'Europe/Paris')).toMatchObject({
      local: '2026-11-22T13:34:56+01:00',
      time_zone: 'Europe/Paris',
      utc: '2026-11-22T12:34:56.000Z',
    });
    expect(describeTime(instant, 'Asia/Kolkata').local).toBe('2026-11-22T18:04:56+05:30');
    expect(describeTime(instant, 'America/New_York').local).toBe('2026-11-22T07:34:56-05:00');
    expect(describeTime(instant, 'UTC').local).toBe('2026-11-22T12:34:56+00:00');
    expect(describeTime(instant, 'Europe/Paris').readable).toMatch(/Sunday, 22 November 2026/);
  });

  it('accepts null for UTC and refuses a zone that does not exist, naming the problem', () => {
    const tool = fromZodTool(currentTime);
    expect(tool.spec.function.strict).toBe(true);
    expect(tool.validate({ time_zone: null }).ok).toBe(true);
    expect(tool.validate({ time_zone: 'Mars/Olympus_Mons' })).toEqual({
      ok: false,
      issues: ['time_zone: not an IANA time zone name; use a name like "Europe/Paris", "Asia/Tokyo" or "UTC"'],
    });
    expect(isTimeZone('Asia/Tokyo')).toBe(true);
  });
});
