/**
 * The images of the memory window: the newest `keep` images of the messages it holds are shown to
 * the model (as `data:` URLs) and count toward its token budget by the provider's rule; older ones,
 * and all of them for a model that cannot see, are named in the text ("[image: name]").
 */
import type { ImageInfo, ImageQueries } from '../../db/images.ts';
import { maxWindowRows, type MessageRow } from '../../db/messages.ts';
import { imagePart, type UserContentPart } from '../agent/messages.ts';
import type { ImageTokenRule } from '../images/image-tokens.ts';
import { withinPixelBudget } from '../images/take-image.ts';

/** What the window does with images. */
export interface WindowImageRules {
  /** Images shown at most (MEMORY_IMAGES). */
  keep: number;
  /** Their cost in tokens; absent when the model cannot see images (none is shown). */
  tokens: ImageTokenRule | undefined;
}

/** A message's images as the model gets them. */
interface RenderedImages {
  /** Each shown image, named in a text part before it. */
  parts: UserContentPart[];
  /** The names of those not shown. */
  named: string[];
}

/** The images of one window, chosen as `selectWindow` reads its rows. */
export interface WindowImages {
  /** The tokens the row's shown images add; called once per row, newest first (selectWindow's order). */
  cost(row: MessageRow): number;
  /** The row's images: shown ones with their bytes, the others by name. */
  render(row: MessageRow): RenderedImages;
}

/** Images read for one window at most: its rows (messages.ts: 400) times the images a message may hold. */
const maxWindowImages = maxWindowRows * 4;

/** Image bookkeeping for one window of conversation `conversationId`, read after message `afterId`. */
export function windowImages(
  images: ImageQueries,
  where: { conversationId: number; afterId: number },
  rules: WindowImageRules,
): WindowImages {
  // One query for the window, not one a row: the conversation's newest images, without bytes.
  const all = new Map<number, ImageInfo[]>();
  for (const info of images.newestOf(where.conversationId, where.afterId, maxWindowImages))
    all.set(info.message_id, [...(all.get(info.message_id) ?? []), info]);
  const byMessage = new Map<number, { info: ImageInfo; shown: boolean }[]>();
  let left = rules.tokens === undefined ? 0 : rules.keep;
  return {
    cost(row) {
      if (row.role !== 'user') return 0;
      const infos = all.get(row.id) ?? [];
      if (infos.length === 0) return 0;
      let tokens = 0;
      byMessage.set(
        row.id,
        infos.map((info) => {
          // An expired image (its bytes gone) is named. So is one stored before the pixel budget existed, and over it: shown, it would
          // fail every call (or swamp a local server's memory) and its cost is no sane number.
          const shown = left > 0 && !info.expired && withinPixelBudget(info.width, info.height);
          if (shown) {
            left -= 1;
            tokens += rules.tokens!(info.width, info.height);
          }
          return { info, shown };
        }),
      );
      return tokens;
    },
    render(row) {
      const parts: UserContentPart[] = [];
      const named: string[] = [];
      for (const { info, shown } of byMessage.get(row.id) ?? []) {
        const bytes = shown ? images.bytes(info.id) : undefined;
        if (bytes === undefined) named.push(info.name);
        else
          parts.push(
            { type: 'text', text: `[image: ${info.name}]` },
            imagePart(info.media_type, bytes.toString('base64')),
          );
      }
      return { parts, named };
    },
  };
}
