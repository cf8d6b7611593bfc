/**
 * The messages people chose "Ask about this message" on where no server added the bot, kept while
 * its form is open: the bot cannot fetch a message there, and the form's submission carries only
 * what was typed, so the message the command carried is kept here until then (an interaction's
 * token lasts 15 minutes, which bounds how long a form may be worth answering). In memory only:
 * after a restart the person chooses the message again.
 */
import type { Message } from 'discord.js';

/** How long a message is kept for its form: as long as Discord keeps the interaction's token. */
const keptMs = 15 * 60_000;
/** The most kept at once: the oldest goes first past it. */
const mostKept = 1000;

export class AskedAbout {
  private readonly kept = new Map<string, { message: Message; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps `message` for the form `userId` is about to fill in. */
  keep(userId: string, message: Message): void {
    const now = this.now();
    for (const [key, entry] of this.kept) if (entry.until < now) this.kept.delete(key);
    if (this.kept.size >= mostKept) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(`${userId}:${message.id}`, { message, until: now + keptMs });
  }

  /** The message `userId` chose, once (null when it was never kept, was taken, or is too old). */
  take(userId: string, messageId: string): Message | null {
    const key = `${userId}:${messageId}`;
    const entry = this.kept.get(key);
    this.kept.delete(key);
    return entry && entry.until >= this.now() ? entry.message : null;
  }
}
