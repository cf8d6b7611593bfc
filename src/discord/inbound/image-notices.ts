/**
 * What the person is told of the images they posted: once per thread that the model cannot see
 * images; each time an image is refused (too large, animated, not an image), which and why.
 */
import type { Message } from 'discord.js';
import type { ImageQueries } from '../../../db/images.ts';
import type { Logger } from '../../agent/logger.ts';
import { truncateLine } from '../../text/truncate.ts';
import type { ImageRefusal, IncomingImages } from './incoming-images.ts';
import { noPings } from '../outbound/send.ts';

export const noVisionNotice =
  "This model cannot see images: I know you posted one, but not what it shows. Describe what matters in words, or ask the bot's operator for a model with vision.";

/** Refused images named in a notice at most; the others are counted ("…and N more"). */
const namedInNotice = 5;
/** A name's and a reason's length in a notice at most, so that the notice stays far within a message. */
const nameLength = 80;
const reasonLength = 200;

/**
 * The notice for refused images, or null when none was. A few are named, each name and reason
 * cut, then the rest counted: a message may hold 10 attachments with long names and many links,
 * and a notice over Discord's 2,000 characters is refused, so the person would be told nothing.
 * At most 20 + 5 × (1 + 4 + 80 + 200) + 20 characters: under 1,500.
 */
function refusalNotice(refusals: readonly ImageRefusal[]): string | null {
  if (refusals.length === 0) return null;
  const named = refusals
    .slice(0, namedInNotice)
    .map(({ name, reason }) => `- ${truncateLine(name, nameLength)}: ${truncateLine(reason, reasonLength)}`);
  const more = refusals.length - named.length;
  return ['I could not look at:', ...named, ...(more > 0 ? [`…and ${more} more`] : [])].join('\n');
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
