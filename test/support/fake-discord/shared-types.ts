/**
 * Shapes that both types.ts and interaction-types.ts use, kept apart so that neither file imports
 * the other back (types.ts re-exports these and interaction-types.ts).
 */

/** One of the seeded users by name, or any other user (added to the guild as a member on first use). */
export type FakeAuthor = 'ada' | 'bob' | { id: string; username: string; bot?: boolean };

/** Options of `fake.waitFor`. */
export interface WaitForOptions {
  timeoutMs?: number;
  /** Says what was awaited, in the timeout error. */
  what?: string;
}
