import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { readUpTo, type ReadUpTo } from '../streams/read-up-to.ts';
import { FetchError } from './fetch-error.ts';

/** The encodings we ask for with Accept-Encoding. */
export const acceptEncoding = 'gzip, deflate, br';

/** A response body as read: at most the cap, counted after decompression. */
export type Body = ReadUpTo;

/**
 * Reads a response body, decompressing it, and stops at `maxBytes` of decompressed output: zlib
 * streams decompress only as fast as they are read, so a zip bomb costs no more than the cap.
 * The response is destroyed when done, whatever happened.
 */
export async function readBody(response: IncomingMessage, maxBytes: number, url: string): Promise<Body> {
  const encodings = (response.headers['content-encoding'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'identity');
  let decoders: Transform[];
  try {
    decoders = [...encodings].reverse().map((encoding) => decoderFor(encoding, url));
  } catch (error) {
    response.destroy();
    throw error;
  }
  // pipeline() returns its last stream and destroys them all on an error, which that last stream
  // then throws into the read below; the callback has nothing left to do.
  const source: Readable =
    decoders.length === 0 ? response : (pipeline([response, ...decoders], () => {}) as Transform);
  try {
    return await readUpTo(source as AsyncIterable<Buffer>, maxBytes);
  } catch (error) {
    if (decoders.length > 0 && isZlibError(error)) {
      throw new FetchError(
        'fetch-bad-encoding',
        `The response from ${url} could not be decompressed (${encodings.join(', ')}).`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    response.destroy();
    for (const decoder of decoders) decoder.destroy();
  }
}

function decoderFor(encoding: string, url: string): Transform {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new FetchError(
        'fetch-bad-encoding',
        `The response from ${url} uses the content encoding "${encoding}", which I cannot read.`,
      );
  }
}

/** zlib's errors carry a numeric errno and a code such as Z_DATA_ERROR (brotli's: ERR__ERROR_FORMAT_…). */
function isZlibError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_'));
}
