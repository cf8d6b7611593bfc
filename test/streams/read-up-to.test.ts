import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readUpTo } from '../../src/streams/read-up-to.ts';

const chunks = fc.array(fc.uint8Array({ maxLength: 20 }), { maxLength: 12 });

function webStream(parts: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < parts.length) controller.enqueue(parts[next++]!);
      else controller.close();
    },
  });
}

describe('readUpTo', () => {
  it('gives the first maxBytes of a Node stream or a web stream, and whether there was more', async () => {
    await fc.assert(
      fc.asyncProperty(chunks, fc.integer({ min: 0, max: 150 }), async (parts, maxBytes) => {
        const whole = Buffer.concat(parts);
        const expected = { bytes: whole.subarray(0, maxBytes), truncated: whole.length > maxBytes };
        expect(await readUpTo(Readable.from(parts.map((part) => Buffer.from(part))), maxBytes)).toEqual(expected);
        expect(await readUpTo(webStream(parts), maxBytes)).toEqual(expected);
      }),
    );
  });

  it('stops an endless web stream once past the cap, cancelling it', async () => {
    let pulls = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new Uint8Array(1000).fill(7));
      },
      cancel() {
        cancelled = true;
      },
    });
    const read = await readUpTo(endless, 2500);
    expect(read.bytes).toEqual(Buffer.alloc(2500, 7));
    expect(read.truncated).toBe(true);
    expect(cancelled).toBe(true);
    // The web stream pulls ahead to fill its queue (one chunk here), no more.
    expect(pulls).toBeLessThanOrEqual(4);
  });

  it('stops an endless Node stream once past the cap, destroying it', async () => {
    const endless = new Readable({
      read() {
        this.push(Buffer.alloc(1000, 7));
      },
    });
    const read = await readUpTo(endless, 2500);
    expect(read).toEqual({ bytes: Buffer.alloc(2500, 7), truncated: true });
    expect(endless.destroyed).toBe(true);
  });

  it('passes on a stream that fails', async () => {
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(3));
        controller.error(new Error('connection reset'));
      },
    });
    await expect(readUpTo(failing, 100)).rejects.toThrow('connection reset');
  });
});
