/**
 * Reading a file from Discord's CDN (an attachment, an image linked in a message): no redirect
 * followed (the host was checked, a redirect could lead anywhere), a time limit, the body cut at
 * `maxBytes` as it is read, whatever size Discord reported, and a body read whole only when it is
 * all there: as stored (not compressed) and as long as its `content-length` says.
 */
import { type ReadUpTo, readUpTo } from '../streams/read-up-to.ts';
import { formatCount } from '../text/count.ts';

/** What came of a fetch: the body read (up to the cap), or why not (an HTTP status, a body not whole). */
export type CdnRead = ({ ok: true } & ReadUpTo) | { ok: false; why: string };

/** Reads `url` up to `maxBytes`. Throws when it cannot be fetched at all (network, time limit, a redirect). */
export async function readFromCdn(url: string, maxBytes: number, timeoutMs: number): Promise<CdnRead> {
  // The body as stored, so that its length can be checked. Node's fetch (undici) asks for gzip by
  // itself and inflates a gzip stream cut short without a word (its gunzip flushes what it has,
  // as browsers do), so a cut image or text would be taken as whole.
  const response = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    redirect: 'error',
    headers: { 'accept-encoding': 'identity' },
  });
  const refuse = async (why: string): Promise<CdnRead> => {
    await response.body?.cancel();
    return { ok: false, why };
  };
  if (!response.ok) return refuse(`HTTP ${response.status}`);
  const encoding = response.headers.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') return refuse(`sent compressed (${encoding}) though asked for as stored`);
  if (response.body === null) return { ok: true, bytes: Buffer.alloc(0), truncated: false };
  const read = await readUpTo(response.body, maxBytes);
  const announced = announcedLength(response.headers);
  // Node's fetch already fails a body that ends before its content-length; this holds on any fetch.
  if (!read.truncated && announced !== null && read.bytes.length !== announced)
    return {
      ok: false,
      why: `cut short: ${formatCount(read.bytes.length)} of the ${formatCount(announced)} bytes announced arrived`,
    };
  return { ok: true, ...read };
}

/** The `content-length` a response announces, or null when it announces none (or nonsense). */
function announcedLength(headers: Headers): number | null {
  const value = headers.get('content-length');
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : null;
}
