/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1. Each request takes the next
 * scripted reply; a request beyond the script, or a body that breaks the OpenAI spec, is recorded
 * as a failure, and `close()` throws for failures and for replies left over.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatRequestProblems } from './openai-conformance.ts';

/** What the server sends back for one request. */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value, or a string sent as it is (to send something that is not JSON). */
  body?: unknown;
  /** Waits this long before answering. */
  delayMs?: number;
  /** Never answers (until the client gives up or the server closes). */
  hang?: boolean;
  /** Destroys the connection without an answer. */
  reset?: boolean;
  /**
   * Sends the status, the headers and only this many bytes of the body, then destroys the
   * connection: a reset in the middle of the response.
   */
  resetAfterBytes?: number;
  /** Sends the status, the headers and only this many bytes of the body, then nothing more. */
  hangAfterBytes?: number;
  /** Sends the status, the headers and then the body as this yields it (a slow, endless or broken stream). */
  bodyPieces?: () => AsyncIterable<string>;
}

/** A reply, or a function of the request body that returns one (to check what was sent). */
export type ScriptStep = ScriptedReply | ((body: ChatRequest) => ScriptedReply);

export interface ChatRequest {
  model: string;
  messages: { role: string; content?: string | null; tool_calls?: ScriptedToolCall[]; tool_call_id?: string }[];
  tools?: { type: 'function'; function: { name: string; strict?: boolean; parameters: Record<string, unknown> } }[];
  tool_choice?: unknown;
  temperature?: number;
}

interface ScriptedToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ScriptedModel {
  /** The base URL to give the openai client (ends in /v1). */
  baseURL: string;
  /** Appends replies to the script. */
  enqueue(...steps: ScriptStep[]): void;
  /**
   * Answers every request the script has no reply for with this function (instead of failing the
   * test): for tests where the number of model calls depends on timing (batching, kills at random
   * points). Null turns it off again.
   */
  otherwise(step: ((body: ChatRequest) => ScriptedReply) | null): void;
  /**
   * Removes the replies not yet requested and returns how many there were: for a test whose
   * script holds more replies than a run may need (so they are not reported as left over).
   */
  drain(): number;
  /** Every request body received, in order. */
  requests: ChatRequest[];
  /** The URL of every HTTP request received, in order (retries included). */
  urls: string[];
  /** The number of HTTP requests received (retries included). */
  readonly attempts: number;
  /** When each HTTP request arrived (performance.now()). */
  attemptTimes: number[];
  /** The most requests that were waiting for their reply at the same time. */
  readonly maxConcurrent: number;
  /** Throws if any request was unexpected or broke the spec, or if replies are left over; then stops. */
  close(): Promise<void>;
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const script: ScriptStep[] = [];
  const requests: ChatRequest[] = [];
  const failures: string[] = [];
  const hanging = new Set<ServerResponse>();
  const attemptTimes: number[] = [];
  const urls: string[] = [];
  let attempts = 0;
  let inFlight = 0;
  let maxConcurrent = 0;
  let fallback: ((body: ChatRequest) => ScriptedReply) | null = null;

  // Node does not await a request listener, so a rejection would go unhandled: it is recorded as a
  // failure instead, unless the client went away before its request was whole (nobody to answer).
  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      if (request.complete)
        failures.push(`${request.method} ${request.url}: the scripted model failed: ${String(error)}`);
      response.destroy();
    });
  });
  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    attempts += 1;
    attemptTimes.push(performance.now());
    urls.push(request.url ?? '');
    inFlight += 1;
    maxConcurrent = Math.max(maxConcurrent, inFlight);
    response.once('close', () => {
      inFlight -= 1;
    });
    const body = await readJson(request);
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      failures.push(`unexpected ${request.method} ${request.url}`);
      return send(response, { status: 404, body: { error: { message: 'not found' } } });
    }
    requests.push(body as ChatRequest);
    const problems = chatRequestProblems(body);
    if (problems.length > 0)
      failures.push(`request ${requests.length} breaks the OpenAI spec:\n  ${problems.join('\n  ')}`);
    const step = script.shift() ?? fallback ?? undefined;
    if (step === undefined) {
      failures.push(`unexpected request ${requests.length}: the script is empty`);
      return send(response, {
        status: 500,
        body: { error: { message: 'scripted model: no reply scripted' } },
        headers: { 'x-should-retry': 'false' },
      });
    }
    let reply: ScriptedReply;
    try {
      reply = typeof step === 'function' ? step(body as ChatRequest) : step;
      // Asked to stream (STREAM_ANSWERS), a scripted completion goes as OpenAI streams it.
      if ((body as { stream?: unknown }).stream === true) reply = asEventStream(reply, body as ChatRequest);
    } catch (error) {
      failures.push(`request ${requests.length}: ${(error as Error).message}`);
      return send(response, {
        status: 500,
        body: { error: { message: 'scripted check failed' } },
        headers: { 'x-should-retry': 'false' },
      });
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.reset) {
      request.socket.destroy();
      return;
    }
    if (reply.resetAfterBytes !== undefined)
      return sendPart(response, reply, reply.resetAfterBytes, () => response.socket?.destroy());
    if (reply.hangAfterBytes !== undefined) {
      hanging.add(response);
      return sendPart(response, reply, reply.hangAfterBytes, () => {});
    }
    if (reply.hang) {
      hanging.add(response);
      return;
    }
    if (reply.bodyPieces) {
      hanging.add(response);
      return sendPieces(response, reply, reply.bodyPieces());
    }
    send(response, reply);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    enqueue: (...steps) => void script.push(...steps),
    otherwise: (step) => void (fallback = step),
    drain: () => script.splice(0).length,
    requests,
    urls,
    attemptTimes,
    get attempts() {
      return attempts;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (script.length > 0) failures.push(`${script.length} scripted replies were never requested`);
      if (failures.length > 0) throw new Error(`scripted model:\n${failures.join('\n')}`);
    },
  };
}

/** A request's body as JSON, or as text when it is not JSON (null when empty). */
export async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A scripted completion as server-sent events, the way OpenAI streams it
 * (platform.openai.com/docs/api-reference/chat-streaming): the role, the content, each call's id and
 * name, its arguments in pieces, the finish reason, the usage when `stream_options` asks, then
 * `[DONE]`. Errors and bodies that are not a completion go as they are.
 */
function asEventStream(reply: ScriptedReply, request: ChatRequest): ScriptedReply {
  const completion = reply.body as
    | {
        model?: string;
        choices?: { message?: { content?: string | null; tool_calls?: ScriptedToolCall[] }; finish_reason?: string }[];
        usage?: unknown;
      }
    | undefined;
  const choice = completion?.choices?.[0];
  if (!completion || (reply.status ?? 200) !== 200 || typeof reply.body !== 'object' || !choice?.message) return reply;
  const event = (payload: object) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model: completion.model ?? request.model, ...payload })}\n\n`;
  const delta = (fields: object, finish: string | null = null) =>
    event({ choices: [{ index: 0, delta: fields, finish_reason: finish }] });
  const events = [delta({ role: 'assistant', content: '' })];
  if (choice.message.content) events.push(delta({ content: choice.message.content }));
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    events.push(
      delta({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      }),
    );
    for (let at = 0; at < call.function.arguments.length; at += 16)
      events.push(
        delta({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(at, at + 16) } }] }),
      );
  });
  events.push(delta({}, choice.finish_reason ?? 'stop'));
  if ((request as { stream_options?: { include_usage?: boolean } }).stream_options?.include_usage && completion.usage)
    events.push(event({ choices: [], usage: completion.usage }));
  events.push('data: [DONE]\n\n');
  return { ...reply, body: events.join(''), headers: { 'content-type': 'text/event-stream', ...reply.headers } };
}

function send(response: ServerResponse, reply: ScriptedReply): void {
  const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
  response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
  response.end(body);
}

/** The head, then each piece as it comes, as fast as the client reads them; stops when the client goes. */
async function sendPieces(response: ServerResponse, reply: ScriptedReply, pieces: AsyncIterable<string>) {
  response.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
  const gone = new Promise<void>((resolve) => response.once('close', resolve));
  for await (const piece of pieces) {
    if (response.destroyed) return;
    if (!response.write(piece)) await Promise.race([new Promise((resolve) => response.once('drain', resolve)), gone]);
  }
  response.end();
}

/** The head and the first `bytes` of the body (announced whole), then `then` (a reset, or nothing). */
function sendPart(response: ServerResponse, reply: ScriptedReply, bytes: number, then: () => void): void {
  const body = Buffer.from(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {}));
  response.writeHead(reply.status ?? 200, {
    'content-type': 'application/json',
    'content-length': String(body.length),
    ...reply.headers,
  });
  response.write(body.subarray(0, bytes), () => setTimeout(then, 20));
}

let callCounter = 0;

/** A completion whose message calls these tools (arguments given as objects, or raw text). */
export function toolCalls(...calls: { name: string; arguments: unknown; id?: string }[]): ScriptedReply {
  return completion(
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.id ?? `call_${++callCounter}`,
        type: 'function',
        function: {
          name: call.name,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        },
      })),
    },
    'tool_calls',
  );
}

/** A completion that calls `final_answer`. */
export function finalAnswer(answer: string, toolsUsed: string[] = []): ScriptedReply {
  return toolCalls({ name: 'final_answer', arguments: { answer, tools_used: toolsUsed } });
}

/** A completion with plain text and no tool call. */
export function text(content: string): ScriptedReply {
  return completion({ role: 'assistant', content }, 'stop');
}

/** An API error in OpenAI's shape. */
export function apiError(
  status: number,
  message: string,
  options: { code?: string; headers?: Record<string, string> } = {},
): ScriptedReply {
  return {
    status,
    headers: options.headers,
    body: {
      error: {
        message,
        type: status === 429 ? 'rate_limit_error' : 'invalid_request_error',
        code: options.code ?? null,
      },
    },
  };
}

function completion(message: Record<string, unknown>, finishReason: string): ScriptedReply {
  return {
    body: {
      id: `chatcmpl-${++callCounter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'scripted-model',
      choices: [{ index: 0, message: { refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    },
  };
}
