/**
 * Durations in words, the one place that writes them. Three forms, for three different readers:
 * a wait ahead (rounded up, in the largest unit that reads well), a configured time limit (exact,
 * in seconds, as it was configured), and a measured time in a table (short and fixed-width).
 */

import { countOf } from './count.ts';

/** "1 second", "45 seconds", "3 minutes", "2 hours": how long until something, rounded up (a wait is never shorter than said). */
export function formatWait(seconds: number): string {
  if (seconds < 90) return countOf(Math.max(1, Math.ceil(seconds)), 'second');
  if (seconds < 90 * 60) return countOf(Math.ceil(seconds / 60), 'minute');
  return countOf(Math.ceil(seconds / 3600), 'hour');
}

/** A time limit, exactly, in seconds: "0.2 seconds", "1 second", "30 seconds" (to the millisecond). */
export function formatTimeLimit(ms: number): string {
  return countOf(Math.round(ms) / 1000, 'second');
}

/** A measured time for a table column: "250 ms", "1.5 s", "2m 05s". */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

const unitMs: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A span as people type it: "45s", "30m", "2h", "3d", "1w", "1.5h" (one number, one unit); null if it is not one. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$/i.exec(text);
  if (!match) return null;
  return Math.round(Number(match[1]) * unitMs[match[2]!.toLowerCase()]!);
}
