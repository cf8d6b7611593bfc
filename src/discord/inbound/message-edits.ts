/**
 * Edited messages (MESSAGE_UPDATE): the text is read again; images are fetched only when new.
 * Discord sends MESSAGE_UPDATE by itself too, when it adds embeds to a link
 * (https://discord.com/developers/docs/events/gateway-events#message-update): such an update, or
 * an edit of the text alone, must neither download the images again (up to 4 × IMAGE_MAX_MB) nor
 * lose them when their links have expired or the model cannot see.
 */
import type { Message, PartialMessage } from 'discord.js';
import type { NewImage } from '../../../db/images.ts';
import type { Store } from '../../../db/store.ts';
import { maxImagesPerMessage } from '../../images/take-image.ts';
import type { TokenCounter } from '../../memory/token-counter.ts';
import { formatUserContent } from '../../memory/window.ts';
import { imageSources, type PreviousImages } from './incoming-images.ts';
import { type MessageReading, readMessage } from './incoming-message.ts';

/** What an edit needs: the store, the token counter, and how the message is read. */
export interface EditDependencies {
  store: Store;
  counter: TokenCounter;
  reading: MessageReading;
}

/** Stores the edited `message` (`before` is the message as discord.js had it cached, if it did). */
export async function storeEdit(
  before: Message | PartialMessage | null,
  message: Message,
  deps: EditDependencies,
): Promise<void> {
  const { store, reading } = deps;
  const previous = previousImages(before, message, store.images.ofDiscordMessage(message.id), reading.images.origins);
  const { content, images } = await readMessage(message, reading, previous);
  const authorName = message.member?.displayName ?? message.author.displayName;
  await deps.counter.load();
  store.db.transaction(() => {
    store.messages.editByDiscordId(message.id, content, deps.counter.count(formatUserContent(authorName, content)));
    store.images.replaceForDiscordMessage(message.id, images.images);
  })();
}

/**
 * The stored images of the message by the source they came from. The images stored are those
 * taken, in the order of the sources (at most 4 looked at), so they pair with the sources of the
 * message as it was (or, not cached, as it is: an attachment cannot be added by an edit) by name.
 */
function previousImages(
  before: Message | PartialMessage | null,
  message: Message,
  stored: readonly NewImage[],
  origins: readonly string[],
): PreviousImages {
  const earlier = before && !before.partial ? imageSources(before, origins) : null;
  const kept = new Map<string, NewImage>();
  let next = 0;
  for (const source of (earlier ?? imageSources(message, origins)).slice(0, maxImagesPerMessage)) {
    const image = stored[next];
    if (image?.name !== source.name) continue;
    kept.set(source.key, image);
    next += 1;
  }
  return { kept, seen: new Set(earlier?.map((source) => source.key)) };
}
