import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatElapsed, formatTimeLimit, formatWait, parseDuration } from '../../src/text/duration.ts';

const unitSeconds: Record<string, number> = { second: 1, minute: 60, hour: 3600 };

describe('formatWait', () => {
  it('says a wait in the unit that reads well, rounded up', () => {
    expect(formatWait(0.2)).toBe('1 second');
    expect(formatWait(1)).toBe('1 second');
    expect(formatWait(45)).toBe('45 seconds');
    expect(formatWait(89.5)).toBe('90 seconds');
    expect(formatWait(90)).toBe('2 minutes');
    expect(formatWait(3600)).toBe('60 minutes');
    expect(formatWait(90 * 60)).toBe('2 hours');
  });

  it('never promises less than the wait, nor a unit too coarse to be useful', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 10 * 86_400, noNaN: true }), (seconds) => {
        const match = /^(\d+) (second|minute|hour)s?$/.exec(formatWait(seconds));
        expect(match).not.toBeNull();
        const said = Number(match![1]) * unitSeconds[match![2]!]!;
        expect(said).toBeGreaterThanOrEqual(seconds);
        // Rounded up by less than one unit (a whole second for waits under a second).
        expect(said - seconds).toBeLessThanOrEqual(unitSeconds[match![2]!]!);
        expect(match![1] === '1').toBe(!formatWait(seconds).endsWith('s'));
      }),
    );
  });
});

describe('formatTimeLimit', () => {
  it('says a limit exactly, in seconds', () => {
    expect(formatTimeLimit(200)).toBe('0.2 seconds');
    expect(formatTimeLimit(1000)).toBe('1 second');
    expect(formatTimeLimit(15_000)).toBe('15 seconds');
    expect(formatTimeLimit(120_000)).toBe('120 seconds');
    expect(formatTimeLimit(1234.4)).toBe('1.234 seconds');
  });
});

describe('formatElapsed', () => {
  it('fits a measured time in a narrow column', () => {
    expect(formatElapsed(250.4)).toBe('250 ms');
    expect(formatElapsed(1500)).toBe('1.5 s');
    expect(formatElapsed(125_000)).toBe('2m 05s');
  });
});

describe('parseDuration', () => {
  it('reads one number and one unit, as people type a span', () => {
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration(' 2H ')).toBe(7_200_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('3d')).toBe(259_200_000);
    expect(parseDuration('1w')).toBe(604_800_000);
  });

  it('refuses what is not one span', () => {
    for (const text of ['', 'h', '2', '2 hours', '2h30m', '-2h', '2026-11-01']) expect(parseDuration(text)).toBeNull();
  });
});
