/**
 * Reading a file from Discord's CDN (an attachment, an image linked in a message): no redirect
 * followed (the host was checked, a redirect could lead anywhere), a time limit, and the body cut
 * at `maxBytes` as it is read, whatever size Discord reported.
 */
import { type ReadUpTo, readUpTo } from '../streams/read-up-to.ts';

/** What came of a fetch: the body read (up to the cap), or the HTTP status of a refusal. */
export type CdnRead = ({ ok: true } & ReadUpTo) | { ok: false; status: number };

/** Reads `url` up to `maxBytes`. Throws when it cannot be fetched at all (network, time limit, a redirect). */
export async function readFromCdn(url: string, maxBytes: number, timeoutMs: number): Promise<CdnRead> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  if (!response.ok) {
    await response.body?.cancel();
    return { ok: false, status: response.status };
  }
  if (response.body === null) return { ok: true, bytes: Buffer.alloc(0), truncated: false };
  return { ok: true, ...(await readUpTo(response.body, maxBytes)) };
}
