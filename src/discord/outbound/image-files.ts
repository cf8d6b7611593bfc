/**
 * Images a tool returned, as Discord files: `/tool`'s reply and a run's tool posts attach them, as
 * many as one message takes; a message Discord refuses (past its upload size limit: 413, code 40005)
 * becomes a line saying so, and the text is posted all the same.
 * https://discord.com/developers/docs/resources/message#create-message (at most 10 files)
 */
import { DiscordAPIError, HTTPError, MessageFlags, RESTJSONErrorCodes, type SendableChannels } from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import type { ToolImage } from '../../agent/tool-images.ts';
import { describeDiscordError } from '../discord-errors.ts';
import { nonceFor, noPings } from './send.ts';

/** Files Discord takes in one message. */
const maxFilesPerMessage = 10;

/** The images one message can carry, as files named `image-1.png`…, and how many are left out. */
export function imageFiles(images: readonly ToolImage[]): {
  files: { attachment: Buffer; name: string }[];
  left: number;
} {
  const files = images.slice(0, maxFilesPerMessage).map((image, index) => ({
    attachment: Buffer.from(image.base64, 'base64'),
    name: `image-${index + 1}.${image.mediaType.slice('image/'.length)}`,
  }));
  return { files, left: images.length - files.length };
}

/** The small line under a post whose images are not all attached. */
export function imagesNotPosted(count: number, why: string): string {
  return `-# ${count === 1 ? '1 image' : `${count} images`} returned but not posted: ${why}.`;
}

export const tooManyFiles = `a message takes ${maxFilesPerMessage} files at most`;

/**
 * Whether Discord refused a message for its files, so that it goes again without them: too large
 * (413, code 40005 "Request entity too large"; a proxy's 413 comes as an HTTPError with no JSON), or
 * no Attach Files permission (50013). Anything else (the channel gone, say) is no reason to send again.
 * https://discord.com/developers/docs/topics/opcodes-and-status-codes#json
 */
export function refusedFiles(error: unknown): error is Error {
  if (error instanceof DiscordAPIError)
    return (
      error.status === 413 ||
      error.code === RESTJSONErrorCodes.RequestEntityTooLarge ||
      error.code === RESTJSONErrorCodes.MissingPermissions
    );
  return error instanceof HTTPError && error.status === 413;
}

/**
 * Posts a tool turn's images in the thread, after its tool post: one message of files (a caption
 * naming those left out), or, when Discord refuses the files, the line saying so. The same
 * `nonceSeed` never posts twice.
 */
export async function sendToolImages(
  channel: SendableChannels,
  images: readonly ToolImage[],
  options: { nonceSeed: string; onSent: (messageId: string) => void; logger: Logger },
): Promise<void> {
  const { files, left } = imageFiles(images);
  const base = { allowedMentions: noPings, flags: MessageFlags.SuppressEmbeds, enforceNonce: true } as const;
  const sent: { id: string } = await channel
    .send({
      ...base,
      content: left > 0 ? imagesNotPosted(left, tooManyFiles) : undefined,
      files,
      nonce: nonceFor(options.nonceSeed, 0),
    })
    .catch((error: unknown) => {
      if (!refusedFiles(error)) throw error;
      options.logger.warn({ err: error, cause: describeDiscordError(error) }, "could not post a tool's images");
      const content = imagesNotPosted(images.length, `Discord refused the files: ${error.message}`);
      return channel.send({ ...base, content, nonce: nonceFor(options.nonceSeed, 1) }) as Promise<{ id: string }>;
    });
  options.onSent(sent.id);
}
