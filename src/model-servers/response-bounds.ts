/**
 * How much of a model server's reply is read, and how long a streamed one may wait between two
 * pieces: the bounds under the SDK. A reply read whole stops at `maxResponseBytes`
 * (openai-transport.ts reads it so); a streamed one is held here to the same bounds.
 */
import { ModelError } from '../agent/model-error.ts';
import { boundedBody } from '../streams/bounded-body.ts';

/** A chat completion is kilobytes; this much is a misconfigured or hostile server, not an answer. */
export const maxResponseBytes = 16 * 1024 * 1024;

/**
 * The fetch of streamed requests. The SDK's time limit ends once the headers are in, so a stream
 * could stall, or run on without end, until the run's own time limit: its body is held to the
 * bounds of a whole reply, `maxResponseBytes` in all, and no gap between two pieces longer than
 * the request's time limit. A stall is a fault of the connection (asked for once more); a reply
 * too large is the server's answer, not asked for again.
 */
export function fetchBounded(maxGapMs: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.ok || response.body === null) return response;
    const body = boundedBody(response.body, {
      maxBytes: maxResponseBytes,
      maxGapMs,
      tooLarge: () =>
        new ModelError('invalid-response', {
          detail: `the streamed reply passed ${maxResponseBytes} bytes and was not read further`,
          reply: { code: tooLargeCode, message: 'the streamed reply was too large', body: null },
        }),
      stalled: () =>
        new ModelError('unavailable', {
          detail: `the streamed reply sent nothing for ${maxGapMs / 1000} s`,
        }),
    });
    const headers = new Headers(response.headers);
    // The body is decoded already, and its length is its own.
    headers.delete('content-encoding');
    headers.delete('content-length');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The code of the error for a reply past `maxResponseBytes` (not retried). */
export const tooLargeCode = 'response_too_large';
