/**
 * The fetches under the SDK, and the bounds they hold a model server's reply to: a reply read whole
 * (`fetchWhole`) stops at `maxResponseBytes`; a streamed one (`fetchBounded`) is held to the same
 * size, and to a longest wait between two pieces.
 */
import { ModelError } from '../agent/model-error.ts';
import { boundedBody } from '../streams/bounded-body.ts';
import { readUpTo } from '../streams/read-up-to.ts';

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

/**
 * The fetch of requests answered whole. It reads the whole body before handing the response over,
 * so that a connection cut or stalled in the middle of the body fails inside fetch, where the SDK's
 * request time limit and retries apply (read later, a reset was "a reply the bot could not read"
 * and a stall lasted until the run's time limit). And it marks a retryable response "do not
 * retry" (the SDK obeys `x-should-retry`) when the server asks for a longer wait than we will
 * sleep through.
 */
export function fetchWhole(maxWaitMs: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    let body: Uint8Array | null;
    try {
      const read = await readCapped(response);
      if (read === 'too large') return tooLargeResponse();
      body = read;
    } catch (error) {
      // An error's body cut short still has its status, which says what went wrong (a 401 is not
      // retried); only a success cut short, or an abort, is a failure of the connection.
      if (response.ok || init?.signal?.aborted) throw error;
      body = null;
    }
    if (response.ok) return new ReadResponse(response, body);
    const headers = new Headers(response.headers);
    if (retryAfterMs(response.headers) > maxWaitMs) headers.set('x-should-retry', 'false');
    return new ReadResponse(response, body === null ? null : errorBodyAsOpenAI(body), headers);
  };
}

/**
 * A response whose body was read already: the SDK reads it from the bytes in hand. Building a new
 * `Response` around them instead (a copy of the headers, a new body stream read once more) cost
 * about 50 µs of CPU per request, a quarter of what the agent loop adds to a bare loop on the SDK
 * (BENCHMARKS.md, issue 30). It has no body stream: the SDK reads a reply with `json()` or `text()`.
 */
class ReadResponse extends Response {
  // Own properties over the prototype's accessors and methods (TypeScript's DOM types declare them as properties).
  override readonly url: string;
  override readonly headers: Headers;
  override readonly text: () => Promise<string>;
  override readonly json: () => Promise<unknown>;
  override readonly arrayBuffer: () => Promise<ArrayBuffer>;

  constructor(read: Response, bytes: Uint8Array | null, headers: Headers = read.headers) {
    super(null, { status: read.status, statusText: read.statusText });
    const body = bytes ?? new Uint8Array(0);
    const text = () => new TextDecoder().decode(body);
    this.url = read.url;
    this.headers = headers;
    this.text = () => Promise.resolve(text());
    this.json = () => Promise.resolve().then(() => JSON.parse(text()) as unknown);
    this.arrayBuffer = () =>
      Promise.resolve(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer);
  }
}

/** How long the server asked us to wait, in milliseconds; 0 when it did not say. */
export function retryAfterMs(headers: Headers | undefined): number {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return 0;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : 0;
}

/**
 * An error body in OpenAI's shape (`{"error": {"message", "code", …}}`), which the SDK reads the
 * message and code from. Gemini may send a list of them (`[{"error": {…}}]`,
 * discuss.ai.google.dev/t/…/109823); Mistral sends the fields at the top level
 * (`{"object": "error", "message": …}`, langchain-ai/langchain#24668). Others pass as they are.
 */
export function asOpenAIErrorBody(parsed: unknown): unknown {
  if (Array.isArray(parsed) && typeof parsed[0] === 'object' && parsed[0] !== null && 'error' in parsed[0])
    return parsed[0];
  if (typeof parsed === 'object' && parsed !== null && !('error' in parsed) && 'message' in parsed)
    return { error: parsed };
  return parsed;
}

/** The body rewritten by `asOpenAIErrorBody`, when it is JSON that needs it. */
function errorBodyAsOpenAI(body: Uint8Array): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return body;
  }
  const normalized = asOpenAIErrorBody(parsed);
  return normalized === parsed ? body : new TextEncoder().encode(JSON.stringify(normalized));
}

/** The body, read whole, or 'too large' past `maxResponseBytes` (the rest is not read). */
async function readCapped(response: Response): Promise<Uint8Array | null | 'too large'> {
  if (response.body === null) return null;
  if (Number(response.headers.get('content-length') ?? 0) > maxResponseBytes) {
    await response.body.cancel();
    return 'too large';
  }
  const { bytes, truncated } = await readUpTo(response.body, maxResponseBytes);
  return truncated ? 'too large' : bytes;
}

/** What the client sees of a response too large to read: an error it does not retry, named by its code. */
function tooLargeResponse(): Response {
  const error = {
    error: {
      message: `the response passed ${maxResponseBytes} bytes and was not read`,
      type: 'invalid_response',
      code: tooLargeCode,
    },
  };
  return new Response(JSON.stringify(error), {
    status: 502,
    headers: { 'content-type': 'application/json', 'x-should-retry': 'false' },
  });
}
