/**
 * What the person is told of the images they posted: once per thread that the model cannot see
 * images; each time an image is refused (too large, animated, not an image), which and why.
 */
import type { Message } from 'discord.js';
import type { ImageQueries } from '../../db/images.ts';
import type { Logger } from '../agent/logger.ts';
import type { IncomingImages } from './incoming-images.ts';
import { noPings } from './send.ts';

export const noVisionNotice =
  "This model cannot see images: I know you posted one, but not what it shows. Describe what matters in words, or ask the bot's operator for a model with vision.";

/** The notice for refused images, or null when none was. */
export function refusalNotice(refusals: readonly string[]): string | null {
  if (refusals.length === 0) return null;
  return ['I could not look at:', ...refusals.map((refusal) => `- ${refusal}`)].join('\n');
}

/** Tells the author of `message` what became of its images; a failure to post is logged, not thrown. */
export async function tellAboutImages(
  message: Pick<Message, 'reply' | 'channelId'>,
  conversationId: number,
  seen: IncomingImages,
  deps: { images: ImageQueries; vision: () => boolean; logger: Logger },
): Promise<void> {
  const notice =
    seen.posted > 0 && !deps.vision()
      ? deps.images.firstNoVisionNotice(conversationId)
        ? noVisionNotice
        : null
      : refusalNotice(seen.refusals);
  if (notice === null) return;
  await message
    .reply({ content: notice, allowedMentions: noPings })
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, channelId: message.channelId }, 'could not post the images notice'),
    );
}
