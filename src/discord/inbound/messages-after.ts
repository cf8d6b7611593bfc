import type { Message, TextBasedChannel } from 'discord.js';

/** Messages read back after downtime: a page is 100 (Discord's maximum), and this many pages at most. */
const maxCatchUpPages = 20;

/**
 * The channel's messages after `afterId`, oldest first, a page of 100 at a time, at most
 * `maxPages` pages (a channel busy while the bot was down is not read back to its beginning).
 */
export async function* messagesAfter(
  channel: TextBasedChannel,
  afterId: string,
  maxPages = maxCatchUpPages,
): AsyncGenerator<Message> {
  let after = afterId;
  for (let page = 0; page < maxPages; page++) {
    const batch = [...(await channel.messages.fetch({ after, limit: 100 })).values()].sort((a, b) =>
      BigInt(a.id) < BigInt(b.id) ? -1 : 1,
    );
    for (const message of batch) {
      after = message.id;
      yield message;
    }
    if (batch.length < 100) return;
  }
}
