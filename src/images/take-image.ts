/**
 * Whether an image's bytes are taken for the model, wherever it came from (Discord, the terminal):
 * PNG, JPEG, WebP or a still GIF, judged by its bytes. An animation is refused rather than cut to
 * its first frame: the APIs take still images only, a WebP's first frame needs a decoder, and a
 * first frame alone often misleads (a blank or title frame); the person is asked for a screenshot.
 */
import type { NewImage } from '../../db/images.ts';
import { sniffImage } from './image-format.ts';

/** Images taken from one message at most; the rest are named. */
export const maxImagesPerMessage = 4;

/** An image taken, or why not (in words for the model and the person). */
export type TakenImage = { image: NewImage } | { refused: string };

/** The image to store, or why it is refused. */
export function takeImageBytes(name: string, bytes: Buffer): TakenImage {
  const facts = sniffImage(bytes);
  if (facts === null) return { refused: 'not a PNG, JPEG, WebP or GIF image (whatever its name or type says)' };
  if (facts.animated) return { refused: 'animated: only still images are shown (post a screenshot of the frame)' };
  return { image: { name, mediaType: facts.mediaType, width: facts.width, height: facts.height, bytes } };
}
