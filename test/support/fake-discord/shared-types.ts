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

/** A file a user attaches; the fake serves `body` at the attachment's `url`. */
export interface FakeAttachmentInput {
  filename: string;
  contentType: string;
  body: string | Buffer;
  /** The size Discord reports, when a test wants it to differ from the body's (a file that lies). */
  reportedSize?: number;
  /** Served compressed and cut short (see `ServedFile.gzipCutTo`). */
  gzipCutTo?: number;
}

/**
 * A place the bot is not in, where a person uses the app installed to their own account
 * (user-installs.ts): a channel of a server that did not add the bot, or a group DM (no server).
 */
export interface AbsentPlace {
  channelId: string;
  guildId: string | null;
  name: string;
}
