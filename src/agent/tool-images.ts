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
  /**
   * Who it is for, as the tool said (MCP's `audience` annotation): only the person (`people`: posted
   * in the thread, not shown to the model), only the model (`model`), or, when absent, both.
   * https://modelcontextprotocol.io/specification/2025-06-18/server/resources#annotations
   */
  audience?: 'people' | 'model';
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

/** A result's images split by who sees them: the model, and the people in the thread. */
export function imagesFor(images: readonly ToolImage[]): { model: ToolImage[]; people: ToolImage[] } {
  return {
    model: images.filter((image) => image.audience !== 'people'),
    people: images.filter((image) => image.audience !== 'model'),
  };
}

const countOfImages = (count: number) => (count === 1 ? 'an image' : `${count} images`);

/**
 * The lines the tool message gains: what became of its images. `seesImages` undefined: no model
 * reads it (`/tool`, whose person gets every image meant for people). Images meant for the person
 * only are named, so that the model knows whether they were shown (`showsPeople`: the run's posts
 * show them, as a Discord run's tool posts do).
 */
export function imagesLine(images: readonly ToolImage[], seesImages: boolean | undefined, showsPeople = false): string {
  if (seesImages === undefined) return `[The tool returned ${countOfImages(images.length)}.]`;
  const { model } = imagesFor(images);
  const peopleOnly = images.length - model.length;
  const lines: string[] = [];
  const what = countOfImages(model.length);
  if (model.length > 0)
    lines.push(
      seesImages
        ? `[The tool returned ${what}: shown to you after the results.]`
        : `[The tool returned ${what}: not shown, this model cannot see images.]`,
    );
  if (peopleOnly > 0)
    lines.push(
      `[The tool returned ${countOfImages(peopleOnly)} for the person: ${showsPeople ? 'posted in the thread' : 'not shown here'}, not for you.]`,
    );
  return lines.join('\n');
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
