/**
 * Images a tool returns (an MCP server's screenshot, say). The chat API's tool messages carry text
 * only, so the images follow the turn's results as a user message of image parts, for a model that
 * sees images; a model that does not is told in the result that they were not shown.
 * https://platform.openai.com/docs/api-reference/chat/create (tool message: content is text)
 */
import { imagePart, type UserMessage } from './messages.ts';

/** One image of a tool's result, already checked (a still PNG, JPEG, WebP or GIF). */
export interface ToolImage {
  mediaType: string;
  /** The bytes, base64. */
  base64: string;
  width: number;
  height: number;
}

/** A tool's result with images: `text` goes in the tool message, the images after the turn. */
export interface ResultWithImages {
  type: 'result-with-images';
  text: string;
  images: readonly ToolImage[];
}

export function isResultWithImages(value: unknown): value is ResultWithImages {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'result-with-images';
}

/** The line the tool message gains: what became of its images (`undefined`: no model, as with `/tool`). */
export function imagesLine(count: number, seesImages: boolean | undefined): string {
  const what = count === 1 ? 'an image' : `${count} images`;
  if (seesImages === undefined) return `[The tool returned ${what}.]`;
  return seesImages
    ? `[The tool returned ${what}: shown to you after the results.]`
    : `[The tool returned ${what}: not shown, this model cannot see images.]`;
}

/**
 * Images shown from one turn's results at most: as many as a person's message may bring
 * (take-image.ts), since each costs as much context, whatever a tool returns.
 */
const maxToolImagesPerTurn = 4;

/**
 * The user message that shows the images of a turn's results, each named by its tool; past
 * `maxToolImagesPerTurn`, images are named as not shown.
 */
export function toolImagesMessage(results: readonly { tool: string; images: readonly ToolImage[] }[]): UserMessage {
  const content: UserMessage['content'] = [];
  let shown = 0;
  for (const { tool, images } of results) {
    images.forEach((image, index) => {
      const name = `image ${index + 1} returned by ${tool}`;
      if (shown >= maxToolImagesPerTurn) {
        content.push({
          type: 'text',
          text: `[${name}: not shown, at most ${maxToolImagesPerTurn} images are shown from one turn]`,
        });
        return;
      }
      shown += 1;
      content.push({ type: 'text', text: `[${name}]` }, imagePart(image.mediaType, image.base64));
    });
  }
  return { role: 'user', content };
}
