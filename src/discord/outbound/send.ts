import { createHash } from 'node:crypto';
import { MessageFlags, type Message, type SendableChannels } from 'discord.js';
import { messagesAfter } from '../inbound/messages-after.ts';
import { splitMessage } from '../../posts/split-message.ts';

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
export function sendText(channel: SendableChannels, text: string, options: SendOptions): Promise<Message[]> {
  return sendPieces(
    channel,
    splitMessage(text).map((content, index) => ({ index, content })),
    options,
  );
}

/** A piece of a message and its place in it (its nonce, and whether it is the reply, follow from it). */
export interface NumberedPiece {
  index: number;
  content: string;
}

/**
 * The pieces of `text` the channel does not yet show from the bot after `afterMessageId` (an
 * answer cut off by a crash while or after it was posted). A piece is matched by its content
 * without surrounding white space, which Discord trims.
 */
export async function piecesNotYetPosted(
  channel: SendableChannels,
  text: string,
  afterMessageId: string | null,
  botUserId: string,
): Promise<NumberedPiece[]> {
  const pieces = splitMessage(text).map((content, index) => ({ index, content }));
  const posted = new Set<string>();
  // Everything after the question, a page at a time (bounded: answers are recent).
  for await (const message of messagesAfter(channel, afterMessageId ?? '0', 10))
    if (message.author.id === botUserId) posted.add(message.content.trim());
  return pieces.filter((piece) => !posted.has(piece.content.trim()));
}

/** Sends pieces already cut to size, in order; the message's first piece is the reply. */
export async function sendPieces(
  channel: SendableChannels,
  pieces: readonly NumberedPiece[],
  options: SendOptions,
): Promise<Message[]> {
  const sent: Message[] = [];
  for (const { index, content } of pieces) {
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
