/**
 * The images of a message: its image attachments, and images linked from Discord's CDN in its text
 * (other links stay text: `fetch_url` reads pages). Each is fetched from Discord's CDN only, up to
 * the size limit, and judged by its bytes (take-image.ts). Larger images are refused, not scaled: no
 * well-kept scaler installs without a native build or a large prebuilt binary (docs/design-notes.md, "Images").
 */
import type { Attachment, Message } from 'discord.js';
import type { NewImage } from '../../../db/images.ts';
import { maxImagesPerMessage, type TakenImage, takeImageBytes } from '../../images/take-image.ts';
import { formatSize } from '../../text/byte-size.ts';
import { readFromCdn } from '../../web/cdn-fetch.ts';

/** Where attachments and linked images may be fetched from: Discord's CDN, unless DISCORD_CDN_URL names another origin. */
export const discordCdnOrigins: readonly string[] = ['https://cdn.discordapp.com', 'https://media.discordapp.net'];

const fetchTimeoutMs = 15_000;
const imageTypes = /^image\//;
const imageNames = /\.(png|jpe?g|webp|gif|apng|avif|heic|bmp|tiff?)$/i;
const imageLinkPath = /\.(png|jpe?g|webp|gif)$/i;

/** How images are taken in. */
export interface ImageIntake {
  /** Whether the model sees images: without it they are named, not fetched. */
  vision: boolean;
  /** The largest image taken, in bytes (IMAGE_MAX_MB). */
  maxBytes: number;
  /** The origins fetched from (`https://cdn.discordapp.com`): no other scheme, host or port. */
  origins: readonly string[];
}

/** What came of a message's images. */
export interface IncomingImages {
  /** To store and show. */
  images: NewImage[];
  /** Lines for the model: images refused or not shown, and why. */
  notes: string[];
  /** For the person: images refused, and why (not for a model that cannot see). */
  refusals: ImageRefusal[];
  /** Images posted (taken or not). */
  posted: number;
}

/** An image refused: its name, and why (in words for the person). */
export interface ImageRefusal {
  name: string;
  reason: string;
}

/** Whether an attachment is taken for an image (by type or name; its bytes decide what it is). */
export function looksLikeImage(attachment: Pick<Attachment, 'contentType' | 'name'>): boolean {
  return imageTypes.test(attachment.contentType ?? '') || imageNames.test(attachment.name);
}

/** Whether `url` is on one of `origins`. */
export function isOnCdn(url: string, origins: readonly string[]): boolean {
  return URL.canParse(url) && origins.includes(new URL(url).origin);
}

/** An image a message holds: an attachment or a link. */
export interface ImageSource {
  /** The attachment's id, or the link: what stays the same while the message keeps the image. */
  key: string;
  name: string;
  url: string;
  /** As Discord reports it (null for a link). */
  size: number | null;
}

/**
 * What an edited message already had: its stored images by source key (not fetched again), and
 * the sources it held before, refused then (not fetched again either).
 */
export interface PreviousImages {
  kept: ReadonlyMap<string, NewImage>;
  seen: ReadonlySet<string>;
}

/** The image attachments of `message`, then the images linked from `origins` in its text. */
export function imageSources(
  message: Pick<Message, 'attachments' | 'content'>,
  origins: readonly string[],
): ImageSource[] {
  return [
    ...[...message.attachments.values()].filter(looksLikeImage).map((attachment) => ({
      key: attachment.id,
      name: attachment.name,
      url: attachment.url,
      size: attachment.size,
    })),
    ...linkedImages(message.content, origins),
  ];
}

/**
 * Reads the images of `message` as `intake` says (those of `previous` as they were). Never throws: the message must be stored and
 * answered whatever its images are, so a failure here becomes a refusal of all of them.
 */
export async function readIncomingImages(
  message: Pick<Message, 'attachments' | 'content'>,
  intake: ImageIntake,
  previous: PreviousImages = { kept: new Map(), seen: new Set() },
): Promise<IncomingImages> {
  try {
    return await readImages(message, intake, previous);
  } catch {
    const refused = 'could not be read';
    const names = [...message.attachments.values()].filter(looksLikeImage).map((attachment) => attachment.name);
    const notes = names.map((name) => `[image ${name}: not shown, ${refused}]`);
    return { images: [], notes, refusals: names.map((name) => ({ name, reason: refused })), posted: names.length };
  }
}

async function readImages(
  message: Pick<Message, 'attachments' | 'content'>,
  intake: ImageIntake,
  previous: PreviousImages,
): Promise<IncomingImages> {
  const candidates = imageSources(message, intake.origins);
  const result: IncomingImages = { images: [], notes: [], refusals: [], posted: candidates.length };
  if (!intake.vision) {
    // Kept all the same: stored because a model sees them, and this one may be switched.
    result.images.push(...candidates.flatMap((image) => previous.kept.get(image.key) ?? []));
    result.notes.push(
      ...candidates.map(
        (image) => `[image ${image.name}: posted, but this model cannot see images, so it is not shown]`,
      ),
    );
    return result;
  }
  const tooMany = { refused: `at most ${maxImagesPerMessage} images are taken from one message` };
  const outcomes = [
    ...(await Promise.all(
      candidates.slice(0, maxImagesPerMessage).map(async (candidate): Promise<TakenImage> => {
        const kept = previous.kept.get(candidate.key);
        if (kept) return { image: kept };
        if (previous.seen.has(candidate.key)) return { refused: 'refused when it was posted' };
        return takeImage(candidate, intake);
      }),
    )),
    ...candidates.slice(maxImagesPerMessage).map(() => tooMany),
  ];
  outcomes.forEach((outcome, index) => {
    const name = candidates[index]!.name;
    if ('image' in outcome) result.images.push(outcome.image);
    else {
      result.notes.push(`[image ${name}: not shown, ${outcome.refused}]`);
      result.refusals.push({ name, reason: outcome.refused });
    }
  });
  return result;
}

/** Discord CDN links in the text that name an image file, each once. */
function linkedImages(text: string, origins: readonly string[]): ImageSource[] {
  const found = new Map<string, ImageSource>();
  for (const [match] of text.matchAll(/https?:\/\/[^\s<>()]+/g)) {
    const link = match.replace(/[.,!?;:'"*_~|]+$/, ''); // A sentence's end, or Markdown, after the link.
    if (!isOnCdn(link, origins)) continue;
    const path = new URL(link).pathname;
    if (!imageLinkPath.test(path)) continue;
    const name = decodedName(path.split('/').at(-1) || 'image');
    found.set(link, { key: link, name, url: link, size: null });
  }
  return [...found.values()];
}

/** A link's file name as people wrote it; as it stands when it is not valid percent-encoding (`a%E0.png`). */
function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

async function takeImage(candidate: ImageSource, intake: ImageIntake): Promise<TakenImage> {
  const limit = `larger than ${formatSize(intake.maxBytes)} (IMAGE_MAX_MB)`;
  if (candidate.size !== null && candidate.size > intake.maxBytes)
    return { refused: `${formatSize(candidate.size)}, ${limit}` };
  if (!isOnCdn(candidate.url, intake.origins)) return { refused: "not on Discord's CDN" };
  let bytes: Buffer;
  try {
    const read = await readFromCdn(candidate.url, intake.maxBytes, fetchTimeoutMs);
    if (!read.ok) return { refused: `could not be fetched (${read.why})` };
    if (read.bytes.length === 0) return { refused: 'empty' };
    // The size Discord reports is checked above; the body is cut again as it is read, in case it lied.
    if (read.truncated) return { refused: limit };
    bytes = read.bytes;
  } catch {
    return { refused: 'could not be fetched' };
  }
  return takeImageBytes(candidate.name, bytes);
}
