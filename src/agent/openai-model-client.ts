/**
 * The one file that imports `openai`: a `ModelClient` for any OpenAI-compatible chat-completions
 * server. Retries are the SDK's own (they honour Retry-After); a wait longer than
 * `maxRetryWaitSeconds` is not slept but reported at once as a rate limit to retry later.
 */
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { describeError } from '../errors.ts';
import { readUpTo } from '../streams/read-up-to.ts';
import type { AssistantMessage, ToolCall } from './messages.ts';
import { ModelError } from './model-error.ts';
import { untilAborted } from './until-aborted.ts';
import type { ModelClient, ModelRequest, ModelResponse } from './model-client.ts';

export interface OpenAIModelClientOptions {
  apiKey: string | null;
  baseURL: string;
  model: string;
  temperature: number;
  /** The SDK's retries after the first attempt. */
  maxRetries: number;
  /** Time limit of one HTTP attempt. */
  timeoutSeconds: number;
  /** The longest Retry-After the client will sleep through before retrying. */
  maxRetryWaitSeconds: number;
}

export function createOpenAIModelClient(options: OpenAIModelClientOptions): ModelClient {
  const client = new OpenAI({
    // A local server may need no key; the SDK insists on one, and sends it only to baseURL.
    apiKey: options.apiKey ?? 'no-key',
    baseURL: options.baseURL,
    maxRetries: options.maxRetries,
    timeout: options.timeoutSeconds * 1000,
    fetch: fetchWhole(options.maxRetryWaitSeconds * 1000),
  });

  return {
    model: options.model,
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
      const body: ChatCompletionCreateParamsNonStreaming = {
        model: options.model,
        messages: request.messages as ChatCompletionCreateParamsNonStreaming['messages'],
        tools: request.tools as ChatCompletionCreateParamsNonStreaming['tools'],
        tool_choice:
          request.toolChoice === 'required'
            ? 'required'
            : { type: 'function', function: { name: request.toolChoice.name } },
        temperature: options.temperature,
      };
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        // The SDK sleeps before a retry without watching the signal: do not wait for it.
        completion = await untilAborted(client.chat.completions.create(body, { signal }), signal);
      } catch (error) {
        throw toModelError(error, signal, options.apiKey);
      }
      try {
        return readCompletion(completion);
      } catch (error) {
        // A reply of the wrong shape is the server's fault, not a bug of ours: say so.
        if (error instanceof ModelError) throw error;
        throw new ModelError('invalid-response', {
          detail: `the response could not be read: ${describeError(error)}`,
          cause: error,
        });
      }
    },
  };
}

function readCompletion(completion: OpenAI.Chat.Completions.ChatCompletion): ModelResponse {
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (!choice?.message) {
    throw new ModelError('invalid-response', { detail: 'the response has no choices[0].message' });
  }
  const rawCalls: unknown = choice.message.tool_calls ?? [];
  const content: unknown = choice.message.content ?? null;
  if (!Array.isArray(rawCalls))
    throw new ModelError('invalid-response', { detail: 'choices[0].message.tool_calls is not a list' });
  if (content !== null && typeof content !== 'string')
    throw new ModelError('invalid-response', { detail: 'choices[0].message.content is not text' });
  const toolCalls = uniqueIds(rawCalls.flatMap(normalizeToolCall));
  const message: AssistantMessage = { role: 'assistant', content };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = completion.usage;
  return {
    message,
    usage: usage
      ? {
          promptTokens: tokenCount(usage.prompt_tokens),
          completionTokens: tokenCount(usage.completion_tokens),
          // A server that leaves the total out (or garbles it) still gets its calls charged to the budget.
          totalTokens:
            tokenCount(usage.total_tokens) || tokenCount(usage.prompt_tokens) + tokenCount(usage.completion_tokens),
        }
      : null,
    finishReason: choice.finish_reason ?? null,
    model: completion.model,
  };
}

/**
 * A count of tokens as the server reported it, or 0 if it is not one: a string, a negative or a
 * fraction would be summed into the run's usage and refused by the database, losing the run's end.
 */
function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
    ? Math.min(Math.round(value), Number.MAX_SAFE_INTEGER)
    : 0;
}

/** Half a surrogate pair: SQLite stores it as U+FFFD, so such an id would not match its result once stored. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Servers that are only OpenAI-compatible leave out a call's `type` or `id`, or send its arguments
 * as an object: each call still becomes one the loop can answer (an id that is missing, or not
 * well-formed Unicode, gets a new one). Other kinds of call are dropped.
 */
function normalizeToolCall(raw: unknown): ToolCall[] {
  const call = (raw ?? {}) as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
  if (call.type !== undefined && call.type !== 'function') return [];
  const args = call.function?.arguments;
  return [
    {
      id:
        typeof call.id === 'string' && call.id !== '' && !loneSurrogate.test(call.id)
          ? call.id
          : `call_${randomUUID()}`,
      type: 'function',
      function: {
        name: typeof call.function?.name === 'string' ? call.function.name : '',
        arguments: typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
      },
    },
  ];
}

/**
 * Each call of a message gets an id of its own: a server that repeats one would otherwise have
 * two tool messages answer the same id, which the next request cannot carry (and the step log
 * could not tell apart). A repeated id is replaced, as a missing one is.
 */
function uniqueIds(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    const unique = seen.has(call.id) ? { ...call, id: `call_${randomUUID()}` } : call;
    seen.add(unique.id);
    return unique;
  });
}

/** Maps what the SDK throws to a `ModelError`; an abort passes through as the signal's reason. */
export function toModelError(error: unknown, signal: AbortSignal, apiKey: string | null = null): unknown {
  if (error instanceof OpenAI.APIUserAbortError || signal.aborted) return signal.reason ?? error;
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
  const base = { status, detail, cause: error };
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
 * The fetch the SDK uses. It reads the whole body before handing the response over, so that a
 * connection cut or stalled in the middle of the body fails inside fetch, where the SDK's request
 * time limit and retries apply (read later, a reset was "a reply the bot could not read" and a
 * stall lasted until the run's time limit). And it marks a retryable response "do not retry" (the
 * SDK obeys `x-should-retry`) when the server asks for a longer wait than we will sleep through.
 */
function fetchWhole(maxWaitMs: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    let body: ArrayBuffer | null;
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
    const headers = new Headers(response.headers);
    // The body is decoded already, and its length is its own.
    headers.delete('content-encoding');
    headers.delete('content-length');
    if (!response.ok && retryAfterMs(response.headers) > maxWaitMs) headers.set('x-should-retry', 'false');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** A chat completion is kilobytes; this much is a misconfigured or hostile server, not an answer. */
export const maxResponseBytes = 16 * 1024 * 1024;

/** The body, read whole, or 'too large' past `maxResponseBytes` (the rest is not read). */
async function readCapped(response: Response): Promise<ArrayBuffer | null | 'too large'> {
  if (response.body === null) return null;
  if (Number(response.headers.get('content-length') ?? 0) > maxResponseBytes) {
    await response.body.cancel();
    return 'too large';
  }
  const { bytes, truncated } = await readUpTo(response.body, maxResponseBytes);
  if (truncated) return 'too large';
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
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

const tooLargeCode = 'response_too_large';

/** Hides the configured key, and anything shaped like an API key, in text bound for logs. */
export function maskSecrets(text: string, apiKey: string | null): string {
  const masked = apiKey && apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text;
  return masked.replace(/\b(sk-[A-Za-z0-9_*-]{2})[A-Za-z0-9_*-]{6,}/g, '$1…[redacted]');
}
