/**
 * Small images built in the test, byte by byte, as their formats' specifications write them: a real
 * PNG (zlib), an APNG, still and animated GIFs, a JPEG's and a WebP's headers. No file, no download.
 */
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A grey PNG of `width` × `height` (8-bit greyscale). `padTo` makes it at least that many bytes
 * with stored (uncompressed) noise, for size limits; `animated` adds an `acTL` chunk (an APNG).
 */
export function png(width: number, height: number, options: { animated?: boolean; padTo?: number } = {}): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let row = 0; row < height; row += 1) rows[row * (width + 1)] = 0; // filter: none
  const animation = Buffer.alloc(8);
  animation.writeUInt32BE(2, 0); // frames
  const parts = [
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...(options.animated ? [chunk('acTL', animation)] : []),
    chunk('IDAT', deflateSync(rows)),
  ];
  const size = parts.reduce((sum, part) => sum + part.length, 0) + 12;
  if (options.padTo !== undefined && options.padTo > size + 12) {
    // An ancillary chunk of noise: decoders skip it, and it does not compress.
    const noise = Buffer.alloc(options.padTo - size - 12);
    for (let at = 0; at < noise.length; at += 1) noise[at] = (at * 2654435761) >>> 24;
    parts.push(chunk('tEXt', noise));
  }
  parts.push(chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/** A GIF89a of `frames` 1-pixel images on a `width` × `height` screen (more than one: animated). */
export function gif(width: number, height: number, frames = 1): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen[4] = 0x80; // a global colour table of 2 entries
  const colours = Buffer.from([0, 0, 0, 255, 255, 255]);
  const frame = Buffer.from([
    0x21,
    0xf9,
    0x04,
    0x00,
    0x0a,
    0x00,
    0x00,
    0x00, // graphic control: 0.1 s
    0x2c,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    0,
    0x00, // image descriptor, 1 × 1
    0x02,
    0x02,
    0x44,
    0x01,
    0x00, // LZW minimum code size 2, one sub-block, end
  ]);
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    screen,
    colours,
    ...Array.from({ length: frames }, () => frame),
    Buffer.from([0x3b]),
  ]);
}

/** A JPEG's start: SOI, a JFIF APP0 segment, the baseline frame header (SOF0) with its size, EOI. */
export function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0, 0, 0, 0, 0x01, 0x01, 0x11, 0x00]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}

/** An extended WebP's header (VP8X) of `width` × `height`, animated or not. */
export function webp(width: number, height: number, animated = false): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x[0] = animated ? 0x02 : 0x00;
  vp8x.writeUIntLE(width - 1, 4, 3);
  vp8x.writeUIntLE(height - 1, 7, 3);
  const body = Buffer.concat([Buffer.from('WEBPVP8X', 'latin1'), Buffer.from([10, 0, 0, 0]), vp8x]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), size, body]);
}

/** The image parts of a request message (its content when it is an array of parts). */
export function imageUrlsOf(message: { content?: unknown }): string[] {
  if (!Array.isArray(message.content)) return [];
  return (message.content as { type: string; image_url?: { url: string } }[])
    .filter((part) => part.type === 'image_url')
    .map((part) => part.image_url!.url);
}

/** The text of a request message, its text parts joined when it has parts. */
export function textOf(message: { content?: unknown }): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return (message.content as { type: string; text?: string }[])
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** The `data:` URL of `bytes` as `mediaType`. */
export const dataUrlOf = (mediaType: string, bytes: Buffer) => `data:${mediaType};base64,${bytes.toString('base64')}`;

/**
 * A PNG whose header claims `width` × `height` (up to 2³²−1 each) over a few bytes of image data:
 * what a hostile or broken file looks like (the real one of 65535 × 65535 is 4 MB, not built here).
 */
export function pngClaiming(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(8))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A lossy WebP's header (a `VP8 ` key frame) of `width` × `height`, 14 bits each (16383 at most). */
export function webpLossy(width: number, height: number): Buffer {
  const frame = Buffer.alloc(10);
  frame.writeUIntLE(0x00_00_10, 0, 3); // frame tag: a key frame, shown
  frame.set([0x9d, 0x01, 0x2a], 3); // the start code
  frame.writeUInt16LE(width & 0x3fff, 6);
  frame.writeUInt16LE(height & 0x3fff, 8);
  return riffWebp('VP8 ', frame);
}

/** A lossless WebP's header (`VP8L`) of `width` × `height`, 1 to 16384 each. */
export function webpLossless(width: number, height: number): Buffer {
  const bits = Buffer.alloc(5);
  bits[0] = 0x2f; // the signature
  bits.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 1);
  return riffWebp('VP8L', bits);
}

function riffWebp(chunkType: string, data: Buffer): Buffer {
  const chunkSize = Buffer.alloc(4);
  chunkSize.writeUInt32LE(data.length);
  const body = Buffer.concat([Buffer.from(`WEBP${chunkType}`, 'latin1'), chunkSize, data]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), size, body]);
}
