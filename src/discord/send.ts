import { createHash } from 'node:crypto';
import { MessageFlags, type Message, type SendableChannels } from 'discord.js';
import { splitMessage } from './split-message.ts';

/** Model output pings nobody: no @everyone, no roles, no users, not even the person replied to. */
export const noPings = { parse: [], repliedUser: false } as const;

export interface SendOptions {
  /** Makes the first piece a reply to this message (still posted if it was deleted). */
  replyTo?: string | null;
  /** The same seed gives the same nonces, so a retried send cannot post twice. */
  nonceSeed: string;
  /** Hides link previews. */
  suppressEmbeds?: boolean;
  /** Called with each message's id as soon as it is posted. */
  onSent?: (messageId: string) => void;
}

/** Discord nonces are at most 25 characters: a digest of the seed and the piece's index. */
export function nonceFor(seed: string, index: number): string {
  return createHash('sha256').update(`${seed}#${index}`).digest('base64url').slice(0, 25);
}

/** Sends `text`, split to fit, and returns the messages posted, in order. */
export async function sendText(channel: SendableChannels, text: string, options: SendOptions): Promise<Message[]> {
  const sent: Message[] = [];
  const pieces = splitMessage(text);
  for (const [index, content] of pieces.entries()) {
    const message = await channel.send({
        content,
        nonce: nonceFor(options.nonceSeed, index),
        enforceNonce: true,
        allowedMentions: noPings,
        flags: options.suppressEmbeds ? MessageFlags.SuppressEmbeds : undefined,
        reply: index === 0 && options.replyTo ? { messageReference: options.replyTo, failIfNotExists: false } : undefined,
    });
    options.onSent?.(message.id);
    sent.push(message);
  }
  return sent;
}

/**
 * Whether `text` was already posted by the bot after `afterMessageId` (the answer of a run cut off
 * between posting and recording it): its first piece is looked for in the channel's history.
 */
export async function alreadyPosted(channel: SendableChannels, text: string, afterMessageId: string | null, botUserId: string): Promise<boolean> {
  const first = splitMessage(text)[0];
  const recent = await channel.messages.fetch(afterMessageId ? { after: afterMessageId, limit: 100 } : { limit: 100 });
  return recent.some((message) => message.author.id === botUserId && message.content === first);
}
