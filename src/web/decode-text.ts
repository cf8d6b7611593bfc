import { TextDecoder } from 'node:util';

/**
 * Bytes to text in a named charset, as browsers do: a byte-order mark wins, an unknown label
 * falls back to UTF-8, and windows-1252 (which the WHATWG Encoding standard also uses for
 * "iso-8859-1", "latin1" and "ascii") is decoded by hand, because Node 20's TextDecoder reads
 * bytes 0x80-0x9F of it as control characters instead of € ‘ ’ “ ” and friends.
 */
export function decodeText(bytes: Uint8Array, charset: string | null): string {
  const label = bomCharset(bytes) ?? charset ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.encoding === 'windows-1252' ? decodeWindows1252(bytes) : decoder.decode(bytes);
}

/** The charset a byte-order mark announces, if the bytes start with one. */
export function bomCharset(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

/** Code points of windows-1252's bytes 0x80-0x9F (WHATWG index); the rest are Latin-1. */
const high = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (character) => String.fromCharCode(high[character.charCodeAt(0) - 0x80]!));
}
