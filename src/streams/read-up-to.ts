/**
 * Reading a body without trusting its size: the one place that does it, for the model server's
 * responses, web pages and Discord attachments. This folder imports nothing of the project, so
 * that every part (the agent core's OpenAI adapter too) may use it.
 */

/** The start of a stream, as read. */
export interface ReadUpTo {
  /** At most the cap. */
  bytes: Buffer;
  /** True when the stream went on past the cap (reading stopped there, and the rest was not read). */
  truncated: boolean;
}

/**
 * Reads `stream` until it ends or has given more than `maxBytes`, and returns the first `maxBytes`.
 * Works on a Node stream (an `IncomingMessage`, a zlib stream) and on a fetch `Response.body`.
 * Leaving the loop early ends the stream: a Node stream is destroyed, and a web stream cancelled
 * (https://streams.spec.whatwg.org/#rs-asynciterator: `return()` cancels unless `preventCancel`),
 * so a body larger than the cap is neither downloaded nor held. To know whether there was more,
 * reading goes on until one byte past the cap has arrived (at most one chunk more).
 */
export async function readUpTo(stream: AsyncIterable<Uint8Array>, maxBytes: number): Promise<ReadUpTo> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const room = maxBytes - total;
    if (chunk.byteLength > room) {
      chunks.push(chunk.subarray(0, room));
      total = maxBytes;
      return { bytes: Buffer.concat(chunks, total), truncated: true };
    }
    chunks.push(chunk);
    total += chunk.byteLength;
  }
  return { bytes: Buffer.concat(chunks, total), truncated: false };
}
