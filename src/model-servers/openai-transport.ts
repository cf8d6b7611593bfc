/**
 * The one file that imports `openai`: sends chat-completions requests to any OpenAI-compatible
 * server. Retries are the SDK's own (they honour Retry-After); a wait longer than
 * `maxRetryWaitSeconds` is not slept but reported at once as a rate limit to retry later. What is
 * sent, and how replies are read, server by server, is `server-client.ts`'s business.
 */
import { OpenAI } from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import { describeError } from '../agent/errors.ts';
import { ModelError } from '../agent/model-error.ts';
import { untilAborted } from '../agent/until-aborted.ts';
import { fetchBounded, fetchWhole, retryAfterMs, tooLargeCode } from './response-bounds.ts';
import { type CallProgress, StreamAccumulator } from './stream-accumulator.ts';
import { censor, isSecret, maskWith } from '../text/mask-secrets.ts';

export { maxResponseBytes } from './response-bounds.ts';

/** A chat-completions request body as it goes on the wire (the profile may have rewritten it). */
export type ChatBody = Record<string, unknown> & { model: string; messages: unknown[] };

/** Sends chat-completions requests; nothing about tools or providers is known here. */
export interface ChatTransport {
  /**
   * The parsed JSON of a successful reply; a failure is thrown as a `ModelError` (or the signal's
   * reason). A body with `stream: true` is streamed: as the tool calls' arguments grow, `onCalls`
   * hears which, and the reply returned is the chunks put back together, as a reply without
   * `stream` would be.
   */
  send(body: ChatBody, signal: AbortSignal, onCalls?: (grown: CallProgress[]) => void): Promise<unknown>;
}

export interface TransportOptions {
  apiKey: string | null;
  baseURL: string;
  /** The SDK's retries after the first attempt. */
  maxRetries: number;
  /** Time limit of one HTTP attempt. */
  timeoutSeconds: number;
  /** The longest Retry-After the client will sleep through before retrying. */
  maxRetryWaitSeconds: number;
  /** What a profile adds: Azure's `api-key` header and `api-version` query. */
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export function createOpenAITransport(options: TransportOptions): ChatTransport {
  const client = clientOf(options, fetchWhole(options.maxRetryWaitSeconds * 1000));
  // A stream is read as it comes: not through fetchWhole, which reads a body whole before the SDK sees it.
  const streaming = clientOf(options, fetchBounded(options.timeoutSeconds * 1000));
  return {
    async send(body, signal, onCalls) {
      try {
        if (body.stream === true) return await readStream(streaming, body, signal, onCalls);
        // The SDK sleeps before a retry without watching the signal: do not wait for it.
        return await untilAborted(
          client.chat.completions.create(body as unknown as ChatCompletionCreateParamsNonStreaming, { signal }),
          signal,
        );
      } catch (error) {
        throw toModelError(error, signal, options.apiKey);
      }
    },
  };
}

/** The SDK's client for a server, fetching through `fetcher`. */
function clientOf(options: Omit<TransportOptions, 'maxRetryWaitSeconds'>, fetcher: typeof fetch): OpenAI {
  return new OpenAI({
    // A local server may need no key; the SDK insists on one, and sends it only to baseURL.
    apiKey: options.apiKey ?? 'no-key',
    baseURL: options.baseURL,
    maxRetries: options.maxRetries,
    timeout: options.timeoutSeconds * 1000,
    fetch: fetcher,
    defaultHeaders: options.headers,
    defaultQuery: options.query,
  });
}

/** Streams a reply, telling `onCalls` as its calls grow, and returns it put back together. */
async function readStream(
  client: OpenAI,
  body: ChatBody,
  signal: AbortSignal,
  onCalls: ((grown: CallProgress[]) => void) | undefined,
): Promise<unknown> {
  const stream = await untilAborted(
    client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, { signal }),
    signal,
  );
  const reply = new StreamAccumulator();
  try {
    for await (const chunk of stream) {
      const grown = reply.add(chunk);
      if (grown.length > 0) onCalls?.(grown);
    }
  } catch (error) {
    if (signal.aborted || error instanceof OpenAI.APIError || error instanceof ModelError) throw error;
    // The connection broke in the middle of the reply: the server's fault, worth one more try.
    throw new ModelError('unavailable', {
      detail: `the streamed reply was cut: ${describeError(error)}`,
      cause: error,
    });
  }
  // A server that ignores `stream` answers with a whole JSON reply, which holds no event.
  if (reply.chunks === 0)
    throw new ModelError('invalid-response', {
      detail: 'the server answered a streamed request without a stream',
      reply: { code: noStreamCode, message: 'the server answered a streamed request without a stream', body: null },
    });
  return reply.completion();
}

/** Maps what the SDK throws to a `ModelError`; an abort passes through as the signal's reason. */
function toModelError(error: unknown, signal: AbortSignal, apiKey: string | null = null): unknown {
  if (error instanceof OpenAI.APIUserAbortError || signal.aborted) return signal.reason ?? error;
  if (error instanceof ModelError) return error; // Said already (a stream cut, or none at all).
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError('unavailable', { detail: 'the model server did not answer in time', cause: error });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ModelError('unavailable', { detail: `cannot reach the model server: ${error.message}`, cause: error });
  }
  if (!(error instanceof OpenAI.APIError)) {
    return new ModelError('invalid-response', { detail: describeError(error), cause: error });
  }
  const status = error.status ?? null;
  const code = typeof error.code === 'string' ? error.code : '';
  // Servers echo keys back ("Incorrect API key provided: sk-…"): the detail goes to logs and the step log.
  const detail = maskSecrets(`model server answered ${status}: ${error.message}`, apiKey);
  // The server's own words, without the SDK's "400 " in front.
  const said = (error.error as { message?: unknown } | undefined)?.message;
  const reply = {
    code: code || null,
    message: maskSecrets(typeof said === 'string' ? said : error.message, apiKey),
    body: error.error ?? null,
  };
  const base = { status, detail, cause: error, reply };
  if (code === tooLargeCode) return new ModelError('invalid-response', base);
  if (status === 429) {
    if (code === 'insufficient_quota') return new ModelError('quota-exceeded', base);
    return new ModelError('rate-limited', { ...base, retryAfterSeconds: retryAfterMs(error.headers) / 1000 || null });
  }
  if (status === 401 || status === 403) return new ModelError('bad-credentials', base);
  if (status === 404) {
    const aboutModel = code === 'model_not_found' || /model/i.test(error.message);
    return new ModelError(aboutModel ? 'model-not-found' : 'wrong-endpoint', base);
  }
  if (isContextTooLong(code, error.message)) return new ModelError('context-too-long', base);
  if (status !== null && status >= 500) return new ModelError('unavailable', base);
  if (status === 408 || status === 409) return new ModelError('unavailable', base);
  return new ModelError('rejected', base);
}

/** OpenAI says `context_length_exceeded`; vLLM, Ollama and others only say it in words. */
function isContextTooLong(code: string, message: string): boolean {
  return code === 'context_length_exceeded' || /context (length|window)|maximum context|too many tokens/i.test(message);
}

/** The code of the error for a streamed request answered without a stream. */
export const noStreamCode = 'no_stream';

/**
 * Hides the configured key, and anything shaped like an OpenAI key, in text bound for logs, by the
 * rule of src/text/mask-secrets.ts: a placeholder such as `none` or `sk-no-key-required` is no secret.
 */
export function maskSecrets(text: string, apiKey: string | null): string {
  return maskWith([apiKey])(text).replace(/\b(sk-[A-Za-z0-9_*-]{2})[A-Za-z0-9_*-]{6,}/g, (key: string, start: string) =>
    isSecret(key) ? `${start}…${censor}` : key,
  );
}

/** The base URL as it may be logged: without any password in it, and without the key wherever it appears. */
export function shownURL(server: string, apiKey: string | null): string {
  let shown = server;
  try {
    const url = new URL(server);
    if (url.password) {
      url.password = 'redacted';
      shown = url.toString();
    }
  } catch {
    // Not a URL: shown as configured, masked below.
  }
  return maskSecrets(shown, apiKey);
}

/** A moderation request as it goes on the wire (https://platform.openai.com/docs/api-reference/moderations/create). */
export type ModerationBody = { model: string; input: string | unknown[] };

/**
 * Sends `POST {baseURL}/moderations` through the SDK's `moderations.create`, with the same fetch,
 * retries and error mapping as chat requests: a failure is thrown as a `ModelError`.
 */
export function createModerationTransport(
  options: Omit<TransportOptions, 'maxRetryWaitSeconds'>,
): (body: ModerationBody, signal: AbortSignal) => Promise<unknown> {
  const client = clientOf(options, fetchWhole(options.timeoutSeconds * 1000));
  return async (body, signal) => {
    try {
      return await untilAborted(client.moderations.create(body as never, { signal }), signal);
    } catch (error) {
      throw toModelError(error, signal, options.apiKey);
    }
  };
}

/**
 * Sends `POST {baseURL}/embeddings` through the SDK's `embeddings.create` (the knowledge's vectors,
 * src/knowledge/embeddings-client.ts), with the same fetch, retries and error mapping as chat
 * requests. `encoding_format: 'float'` is asked for: without it the SDK asks for base64 and decodes
 * it itself (https://github.com/openai/openai-node/pull/1312), which servers that ignore the field
 * and answer with numbers (Ollama's compatibility layer among them) would break. Returns the
 * vectors in the order of `input` (by each item's `index`).
 */
export function createEmbeddingsTransport(
  options: Omit<TransportOptions, 'maxRetryWaitSeconds'>,
): (model: string, input: string[], signal: AbortSignal) => Promise<number[][]> {
  const client = clientOf(options, fetchWhole(options.timeoutSeconds * 1000));
  return async (model, input, signal) => {
    try {
      const reply = await untilAborted(
        client.embeddings.create({ model, input, encoding_format: 'float' }, { signal }),
        signal,
      );
      const data = Array.isArray(reply?.data) ? [...reply.data] : [];
      return data.sort((a, b) => a.index - b.index).map((item) => item.embedding);
    } catch (error) {
      throw toModelError(error, signal, options.apiKey);
    }
  };
}
