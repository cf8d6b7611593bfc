/**
 * `/summarize`'s reading: a channel's (or thread's, or DM's) history from Discord's REST API, newest
 * first, a page of 100 at a time (GET /channels/{id}/messages with `before`, Discord's most per page:
 * https://discord.com/developers/docs/resources/message#get-channel-messages), back to where the
 * span starts, and at most `maxMessages`. Comes from: commands/summarize.ts, once the asker's
 * permissions and the allowed places are checked. Goes to: the Discord-free summing up
 * (src/catch-up/catch-up-summary.ts), as plain values, oldest first.
 *
 * Memory stays flat: pages are fetched with `cache: false`, so discord.js keeps none of them in the
 * channel's message cache, and each message becomes a small value at once.
 */
import { type Message, MessageType, type TextBasedChannel } from 'discord.js';
import type { ReadMessage } from '../../catch-up/catch-up-summary.ts';
import type { SinceStart } from '../../catch-up/since.ts';

/** A thread started in the span: its name and id. */
interface StartedThread {
  id: string;
  name: string;
  /** When the message that started or announced it was sent (ms). */
  at: number;
}

/** What was read: the messages (oldest first), the threads started among them, and whether the span was cut at the most. */
export interface History {
  messages: ReadMessage[];
  threads: StartedThread[];
  /** True: the span holds more than `maxMessages`; the newest were read. */
  cut: boolean;
  /** Where the span started, for the reply: ms since the epoch, or null when it is a message. */
  since: number | null;
}

const page = 100;

/** Reads the span `start` names of `channel`, for `askerId` (whose last message ends a default span). */
export async function readHistory(
  channel: TextBasedChannel,
  start: Exclude<SinceStart, { kind: 'refused' }>,
  askerId: string,
  maxMessages: number,
): Promise<History> {
  const newestFirst: ReadMessage[] = [];
  const threads: StartedThread[] = [];
  let before: string | undefined;
  for (;;) {
    const batch = [
      ...(await channel.messages.fetch({ limit: page, cache: false, ...(before ? { before } : {}) })).values(),
    ].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    for (const message of batch) {
      before = message.id;
      if (ends(start, message, askerId)) return finish(newestFirst, threads, false, start, true);
      if (newestFirst.length >= maxMessages) return finish(newestFirst, threads, true, start, true);
      const thread = startedThread(message);
      if (thread) threads.push(thread);
      if (message.type === MessageType.ThreadCreated) continue;
      newestFirst.push(readMessage(message));
    }
    // The channel's start: a default span found no message of the asker's.
    if (batch.length < page) return finish(newestFirst, threads, false, start, start.kind !== 'askers-last');
  }
}

/** Whether `message` lies before the span: older than its time, before its message, or the asker's own last one. */
function ends(start: Exclude<SinceStart, { kind: 'refused' }>, message: Message, askerId: string): boolean {
  if (start.kind === 'time') return message.createdTimestamp < start.since;
  if (start.kind === 'message') return BigInt(message.id) < BigInt(start.messageId);
  return message.author.id === askerId;
}

/**
 * The messages oldest first. A default span whose asker never spoke here (the channel's start
 * reached) is the last day's only; one cut at the most keeps what was read.
 */
function finish(
  newestFirst: ReadMessage[],
  threads: StartedThread[],
  cut: boolean,
  start: Exclude<SinceStart, { kind: 'refused' }>,
  foundAskersLast: boolean,
): History {
  if (start.kind === 'askers-last' && !foundAskersLast) {
    return {
      messages: newestFirst.filter((message) => message.at >= start.orSince).reverse(),
      threads: threads.filter((thread) => thread.at >= start.orSince).reverse(),
      cut,
      since: start.orSince,
    };
  }
  return {
    messages: newestFirst.reverse(),
    threads: threads.reverse(),
    cut,
    since: start.kind === 'time' ? start.since : null,
  };
}

/** A thread started from this message, or announced by it (Discord's "started a thread" message, type 18). */
function startedThread(message: Message): StartedThread | null {
  if (message.type === MessageType.ThreadCreated && message.reference?.channelId)
    return { id: message.reference.channelId, name: message.content, at: message.createdTimestamp };
  return message.thread ? { id: message.thread.id, name: message.thread.name, at: message.createdTimestamp } : null;
}

/** A message as the summary reads it: who, when, and its text with its attachments and embeds named. */
function readMessage(message: Message): ReadMessage {
  const files = [...message.attachments.values()].map((file) => `[file: ${file.name}]`);
  const embeds = message.embeds.map((embed) => `[embed: ${embed.title ?? embed.url ?? 'untitled'}]`);
  return {
    id: message.id,
    authorId: message.author.id,
    authorName: message.member?.displayName ?? message.author.displayName,
    at: message.createdTimestamp,
    text: [message.content, ...files, ...embeds].filter((part) => part !== '').join(' '),
  };
}
