/**
 * What an image really is, read from its bytes (magic numbers), never from the `content_type` or
 * the name a sender gave it: the format, its size in pixels, and whether it is animated. Only the
 * formats OpenAI's chat API takes are recognised: PNG, JPEG, WebP and non-animated GIF
 * (https://platform.openai.com/docs/guides/images-vision#image-input-requirements).
 */

/** The media types of the formats taken (what a `data:` URL names). */
type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

/** An image as its bytes say. */
export interface ImageFacts {
  mediaType: ImageMediaType;
  width: number;
  height: number;
  /** An animated GIF, an animated WebP or an APNG (which the APIs take as a still, or refuse). */
  animated: boolean;
}

/** The facts of an image in one of the four formats, or null for anything else (or a cut or broken header). */
export function sniffImage(bytes: Uint8Array): ImageFacts | null {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return png(data);
    if (startsWith(data, [0xff, 0xd8, 0xff])) return jpeg(data);
    if (data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return webp(data);
    if (/^GIF8[79]a$/.test(data.toString('latin1', 0, 6))) return gif(data);
  } catch {
    return null; // A header that claims more than the bytes hold.
  }
  return null;
}

function startsWith(data: Buffer, magic: readonly number[]): boolean {
  return magic.every((byte, index) => data[index] === byte);
}

const valid = (facts: ImageFacts): ImageFacts | null => (facts.width > 0 && facts.height > 0 ? facts : null);

/** PNG: IHDR first; an `acTL` chunk before the first `IDAT` makes it an APNG (https://www.w3.org/TR/png-3/#apng-frame-based-animation). */
function png(data: Buffer): ImageFacts | null {
  if (data.toString('latin1', 12, 16) !== 'IHDR') return null;
  const facts = { mediaType: 'image/png' as const, width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  let animated = false;
  for (let at = 8; at + 8 <= data.length;) {
    const length = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    if (type === 'acTL') animated = true;
    if (type === 'IDAT' || type === 'IEND') break;
    at += 12 + length;
  }
  return valid({ ...facts, animated });
}

/** JPEG: the size is in the first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC). */
function jpeg(data: Buffer): ImageFacts | null {
  for (let at = 2; at + 9 < data.length;) {
    if (data[at] !== 0xff) return null;
    const marker = data[at + 1]!;
    if (marker === 0xff) {
      at += 1; // Fill bytes.
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame)
      return valid({
        mediaType: 'image/jpeg',
        height: data.readUInt16BE(at + 5),
        width: data.readUInt16BE(at + 7),
        animated: false,
      });
    at += 2 + data.readUInt16BE(at + 2);
  }
  return null;
}

/** WebP: lossy (VP8), lossless (VP8L) or extended (VP8X, whose flags say animation). https://developers.google.com/speed/webp/docs/riff_container */
function webp(data: Buffer): ImageFacts | null {
  const chunk = data.toString('latin1', 12, 16);
  const mediaType = 'image/webp' as const;
  if (chunk === 'VP8X') {
    const animated = (data[20]! & 0x02) !== 0;
    return valid({ mediaType, width: 1 + data.readUIntLE(24, 3), height: 1 + data.readUIntLE(27, 3), animated });
  }
  if (chunk === 'VP8 ')
    return valid({
      mediaType,
      width: data.readUInt16LE(26) & 0x3fff,
      height: data.readUInt16LE(28) & 0x3fff,
      animated: false,
    });
  if (chunk === 'VP8L') {
    const bits = data.readUInt32LE(21);
    return valid({ mediaType, width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff), animated: false });
  }
  return null;
}

/**
 * GIF: the logical screen's size; animated when it holds more than one image (a NETSCAPE loop
 * block alone does not make it so). https://www.w3.org/Graphics/GIF/spec-gif89a.txt
 */
function gif(data: Buffer): ImageFacts | null {
  const facts = { mediaType: 'image/gif' as const, width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
  let at = 13;
  if (data[10]! & 0x80) at += 3 * 2 ** ((data[10]! & 0x07) + 1); // The global colour table.
  let images = 0;
  while (at < data.length) {
    const block = data[at]!;
    if (block === 0x3b) break; // Trailer.
    if (block === 0x21) {
      at = skipSubBlocks(data, at + 2); // An extension: its label, then sub-blocks.
    } else if (block === 0x2c) {
      images += 1;
      if (images > 1) break;
      const packed = data[at + 9]!;
      at += 10;
      if (packed & 0x80) at += 3 * 2 ** ((packed & 0x07) + 1); // A local colour table.
      at = skipSubBlocks(data, at + 1); // The LZW code size, then the data.
    } else return null;
  }
  if (images === 0) return null;
  return valid({ ...facts, animated: images > 1 });
}

/** The index after a run of sub-blocks (each a length byte, then that many bytes; a 0 ends the run). */
function skipSubBlocks(data: Buffer, at: number): number {
  while (at < data.length) {
    const length = data[at]!;
    at += 1 + length;
    if (length === 0) break;
  }
  return at;
}
