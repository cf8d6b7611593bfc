/**
 * The benches' smoke mode (BENCH_SMOKE=1, as `npm run check:benches` runs every `bench*` script):
 * a handful of rounds and small sizes, seconds each, so that a bench broken by a change fails in
 * `npm test` instead of when someone next measures. Its figures mean nothing; its exit code does.
 */
export const smoke = process.env.BENCH_SMOKE === '1';

/** The full size, or the small one in smoke mode. */
export function sized<T>(full: T, small: T): T {
  return smoke ? small : full;
}
