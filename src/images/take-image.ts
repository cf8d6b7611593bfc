/**
 * Whether an image's bytes are taken for the model, wherever it came from (Discord, the terminal,
 * an MCP tool): PNG, JPEG, WebP or a still GIF, judged by its bytes, within the pixel budget. An
 * animation is refused rather than cut to its first frame: the APIs take still images only, a
 * WebP's first frame needs a decoder, and a first frame alone often misleads (a blank or title
 * frame); the person is asked for a screenshot.
 */
import type { NewImage } from '../../db/images.ts';
import { sniffImage } from './image-format.ts';
import { formatCount } from '../text/count.ts';

/** Images taken from one message at most; the rest are named. */
export const maxImagesPerMessage = 4;

/**
 * The longest side taken, in pixels: Anthropic's API refuses an image over 8000 × 8000 px
 * (https://platform.claude.com/docs/en/build-with-claude/vision, "General limits"), and once such
 * an image is in a thread's memory every later call carries it and fails the same way. The others
 * take larger images and scale them down: OpenAI to fit 2048 × 2048
 * (https://platform.openai.com/docs/guides/images-vision#calculating-costs), Gemini to fit
 * 3072 × 3072 (https://firebase.google.com/docs/vertex-ai/input-file-requirements), so nothing
 * they would see is lost.
 */
export const maxImageSide = 8000;

/**
 * The largest area taken, in pixels. No provider documents one (they scale), but a local vision
 * server decodes the whole image before it scales it: llama.cpp decodes with stb_image, which takes
 * up to 2^24 px a side (`STBI_MAX_DIMENSIONS`, https://github.com/nothings/stb/blob/master/stb_image.h),
 * at 3 to 4 bytes a pixel, so a 65535 × 65535 PNG of 4 MB becomes 4.3 GB there. 40 megapixels
 * (160 MB decoded at most) still takes every 8K screenshot (33 MP) and camera photos to 8000 × 5000.
 */
export const maxImagePixels = 40_000_000;

/** An image taken, or why not (in words for the model and the person). */
export type TakenImage = { image: NewImage } | { refused: string };

/** Whether an image of `width` × `height` is within the pixel budget (each side and the area). */
export function withinPixelBudget(width: number, height: number): boolean {
  return width <= maxImageSide && height <= maxImageSide && width * height <= maxImagePixels;
}

/** The image to store, or why it is refused. */
export function takeImageBytes(name: string, bytes: Buffer): TakenImage {
  const facts = sniffImage(bytes);
  if (facts === null) return { refused: 'not a PNG, JPEG, WebP or GIF image (whatever its name or type says)' };
  if (facts.animated) return { refused: 'animated: only still images are shown (post a screenshot of the frame)' };
  if (!withinPixelBudget(facts.width, facts.height)) return { refused: tooManyPixels(facts.width, facts.height) };
  return { image: { name, mediaType: facts.mediaType, width: facts.width, height: facts.height, bytes } };
}

/** Why an image over the pixel budget is refused, its size told as the size limit's is. */
function tooManyPixels(width: number, height: number): string {
  return (
    `${formatCount(width)} × ${formatCount(height)} pixels, larger than ${formatCount(maxImageSide)} pixels a side or ` +
    `${maxImagePixels / 1_000_000} megapixels in all (scale it down and post it again)`
  );
}
