/**
 * A channel's pinned messages, every page of them (`/knowledge add-pins`): Discord's paged list of
 * 2025, GET /channels/{id}/messages/pins with `before` (the last pin's time) and `limit` (at most
 * 50), which discord.js 14 calls as `messages.fetchPins`
 * (https://discord.com/developers/docs/resources/message#get-channel-pins).
 */
import type { GuildTextBasedChannel, Message } from 'discord.js';

/** The most pins read of one channel (Discord keeps 250 at most). */
const maxPins = 250;

/** The pinned messages, most recently pinned first. */
export async function pinnedMessages(channel: GuildTextBasedChannel): Promise<Message<true>[]> {
  const messages: Message<true>[] = [];
  let before: number | undefined;
  while (messages.length < maxPins) {
    const page = await channel.messages.fetchPins({ limit: 50, ...(before === undefined ? {} : { before }) });
    messages.push(...page.items.map((item) => item.message));
    if (!page.hasMore || page.items.length === 0) break;
    before = page.items.at(-1)!.pinnedTimestamp;
  }
  return messages.slice(0, maxPins);
}
