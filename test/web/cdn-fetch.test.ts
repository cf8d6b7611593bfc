/**
 * Reading from the CDN against a raw HTTP server on 127.0.0.1 that writes its responses byte by
 * byte: a body is taken whole only when it is all there (issue 27, the CDN finding).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { readFromCdn } from '../../src/web/cdn-fetch.ts';
import { png } from '../support/images.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server answering each request with `respond(request head)`, written as is, then closing the connection. */
async function rawServer(respond: (head: string) => Buffer): Promise<string> {
  server = createServer((socket: Socket) => {
    socket.once('data', (head) => socket.end(respond(head.toString('latin1'))));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/attachments/1/2/a.png`;
}

const response = (headers: Record<string, string | number>, body: Buffer) =>
  Buffer.concat([
    Buffer.from(
      `HTTP/1.1 200 OK\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')}\r\n`,
      'latin1',
    ),
    body,
  ]);

describe('reading from the CDN', () => {
  const image = png(64, 48, { padTo: 4000 });

  it('takes a whole body, asking for it as stored (not compressed)', async () => {
    let asked = '';
    const url = await rawServer((head) => {
      asked = /accept-encoding: *([^\r]*)/i.exec(head)?.[1] ?? '(none)';
      return response({ 'content-type': 'image/png', 'content-length': image.length }, image);
    });
    expect(await readFromCdn(url, 1_000_000, 5000)).toEqual({ ok: true, bytes: image, truncated: false });
    expect(asked).toBe('identity');
  });

  it('refuses a compressed body cut short, which fetch would inflate as far as it goes without a word', async () => {
    const cut = gzipSync(image).subarray(0, 2000);
    const url = await rawServer(() =>
      response({ 'content-type': 'image/png', 'content-encoding': 'gzip', 'content-length': cut.length }, cut),
    );
    expect(await readFromCdn(url, 1_000_000, 5000)).toEqual({
      ok: false,
      why: 'sent compressed (gzip) though asked for as stored',
    });
  });

  it('does not take a body that ends before its content-length', async () => {
    const url = await rawServer(() =>
      response({ 'content-type': 'image/png', 'content-length': image.length }, image.subarray(0, 1000)),
    );
    // Node's fetch fails the read itself ("terminated"): the callers refuse it as not fetched.
    await expect(readFromCdn(url, 1_000_000, 5000)).rejects.toThrow('terminated');
  });

  it('cuts a body longer than the cap, whatever its content-length says', async () => {
    const url = await rawServer(() => response({ 'content-type': 'image/png', 'content-length': 10 }, image));
    expect(await readFromCdn(url, 5, 5000)).toEqual({ ok: true, bytes: image.subarray(0, 5), truncated: true });
  });
});
