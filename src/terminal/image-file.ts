/**
 * `/image PATH` at the terminal: an image file attached to the next message, judged as Discord's
 * images are (its bytes, the size limit, still images only).
 */
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { NewImage } from '../../db/images.ts';
import { takeImageBytes } from '../images/take-image.ts';
import { formatSize } from '../text/byte-size.ts';

/** What came of `/image PATH`: the image to attach, or a note for the model; and what to tell the person. */
export interface ImageFileOutcome {
  image: NewImage | null;
  /** For the model, with the next message (an image it is not shown). */
  note: string | null;
  /** For the person at the terminal. */
  say: string;
}

/** Reads the image at `path` (at most `maxBytes`, read no further) for a model that sees images or not. */
export async function readImageFile(
  path: string,
  settings: { vision: boolean; maxBytes: number },
): Promise<ImageFileOutcome> {
  if (path === '') return { image: null, note: null, say: 'usage: /image PATH (attached to your next message)' };
  const name = basename(path);
  if (!settings.vision) {
    // Named, not read: but a file that is not there is said, as it is to a model that sees images.
    const found = await stat(path).catch((error: NodeJS.ErrnoException) => error.code ?? String(error));
    if (typeof found === 'string')
      return { image: null, note: null, say: `(not attached: cannot read ${path}: ${found})` };
    return {
      image: null,
      note: `[image ${name}: posted, but this model cannot see images, so it is not shown]`,
      say: `(this model cannot see images: ${name} will be named, not shown)`,
    };
  }
  let bytes: Buffer;
  try {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      if (size > settings.maxBytes) {
        const refused = `${formatSize(size)}, larger than ${formatSize(settings.maxBytes)} (IMAGE_MAX_MB)`;
        return { image: null, note: null, say: `(not attached: ${name} is ${refused})` };
      }
      bytes = await file.readFile();
    } finally {
      await file.close();
    }
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    return { image: null, note: null, say: `(not attached: cannot read ${path}: ${reason})` };
  }
  const taken = takeImageBytes(name, bytes);
  if ('refused' in taken) return { image: null, note: null, say: `(not attached: ${name} is ${taken.refused})` };
  const { width, height } = taken.image;
  return {
    image: taken.image,
    note: null,
    say: `(attached ${name}, ${width}×${height}: it goes with your next message)`,
  };
}
