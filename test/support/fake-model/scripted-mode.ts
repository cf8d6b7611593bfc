/**
 * The scripted mode: each request takes the next scripted reply (replies.ts builds them, faults
 * included); a request beyond the script, or a body that breaks the OpenAI spec, is recorded as a
 * failure, and `close()` throws for failures and for replies left over. It records every request.
 */
import type { ServerResponse } from 'node:http';
import { chatRequestProblems } from '../openai-conformance.ts';
import type { ScriptedReply, ScriptedToolCall } from './replies.ts';
import { isChatRequest, Script } from './script.ts';
import { chunkEvent, type Exchange, type ModelServer, sendJson, startModelServer } from './server.ts';

/** A reply, or a function of the request body that returns one (to check what was sent). */
export type ScriptStep = ScriptedReply | ((body: ChatRequest) => ScriptedReply);

export interface ChatRequest {
  model: string;
  messages: { role: string; content?: string | null; tool_calls?: ScriptedToolCall[]; tool_call_id?: string }[];
  tools?: { type: 'function'; function: { name: string; strict?: boolean; parameters: Record<string, unknown> } }[];
  tool_choice?: unknown;
  temperature?: number;
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
  const requests: ChatRequest[] = [];
  const attemptTimes: number[] = [];
  const urls: string[] = [];
  let inFlight = 0;
  let maxConcurrent = 0;
  const server: ModelServer = await startModelServer(async (exchange) => {
    attemptTimes.push(performance.now());
    urls.push(exchange.request.url ?? '');
    inFlight += 1;
    maxConcurrent = Math.max(maxConcurrent, inFlight);
    exchange.response.once('close', () => {
      inFlight -= 1;
    });
    if (!isChatRequest(exchange, server.failures)) return;
    requests.push(exchange.body as ChatRequest);
    const problems = chatRequestProblems(exchange.body);
    if (problems.length > 0)
      server.failures.push(`request ${requests.length} breaks the OpenAI spec:\n  ${problems.join('\n  ')}`);
    const step = script.next(requests.length, exchange.response);
    const reply = step && replyTo(step, exchange, requests.length, server.failures);
    if (reply) await play(reply, exchange, server.hanging);
  });
  const script = new Script<ScriptStep>(server.failures, 'scripted model');
  return {
    baseURL: server.baseURL,
    enqueue: (...steps) => script.enqueue(...steps),
    otherwise: (step) => script.otherwise(step),
    drain: () => script.drain(),
    requests,
    urls,
    attemptTimes,
    get attempts() {
      return attemptTimes.length;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    async close() {
      script.checkLeftOver('replies');
      await server.close('scripted model');
    },
  };
}

/** The step's reply to this request (as events when it asks to stream); a check that throws is a failure. */
function replyTo(step: ScriptStep, { body, response }: Exchange, requestNumber: number, failures: string[]) {
  try {
    const reply = typeof step === 'function' ? step(body as ChatRequest) : step;
    // Asked to stream (STREAM_ANSWERS), a scripted completion goes as OpenAI streams it.
    return (body as { stream?: unknown }).stream === true ? asEventStream(reply, body as ChatRequest) : reply;
  } catch (error) {
    failures.push(`request ${requestNumber}: ${(error as Error).message}`);
    sendJson(response, 500, { error: { message: 'scripted check failed' } }, { 'x-should-retry': 'false' });
    return undefined;
  }
}

/**
 * A scripted completion as server-sent events, the way OpenAI streams it
 * (platform.openai.com/docs/api-reference/chat-streaming): the role, the content, each call's id
 * and name, its arguments in pieces, the finish reason (with llama.cpp's timings where the reply has
 * them), the usage when `stream_options` asks, then
 * `[DONE]`. Errors and bodies that are not a completion go as they are.
 */
function asEventStream(reply: ScriptedReply, request: ChatRequest): ScriptedReply {
  const completion = reply.body as
    | {
        model?: string;
        choices?: { message?: { content?: string | null; tool_calls?: ScriptedToolCall[] }; finish_reason?: string }[];
        usage?: unknown;
        timings?: unknown;
      }
    | undefined;
  const choice = completion?.choices?.[0];
  if (!completion || (reply.status ?? 200) !== 200 || typeof reply.body !== 'object' || !choice?.message) return reply;
  const event = (payload: object) => chunkEvent('chatcmpl-scripted', completion.model ?? request.model, payload);
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
  // llama.cpp's llama-server sends its timings with the last choice (tools/server/server-task.cpp).
  events.push(
    completion.timings
      ? event({
          choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }],
          timings: completion.timings,
        })
      : delta({}, choice.finish_reason ?? 'stop'),
  );
  if ((request as { stream_options?: { include_usage?: boolean } }).stream_options?.include_usage && completion.usage)
    events.push(event({ choices: [], usage: completion.usage }));
  events.push('data: [DONE]\n\n');
  return { ...reply, body: events.join(''), headers: { 'content-type': 'text/event-stream', ...reply.headers } };
}

/** Sends the reply, or plays its fault: a delay, a reset, a cut or hanging body, a body in pieces. */
async function play(reply: ScriptedReply, { request, response }: Exchange, hanging: Set<ServerResponse>) {
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (reply.reset) return void request.socket.destroy();
  if (reply.resetAfterBytes !== undefined)
    return sendPart(response, reply, reply.resetAfterBytes, () => response.socket?.destroy());
  if (reply.hangAfterBytes !== undefined) {
    hanging.add(response);
    return sendPart(response, reply, reply.hangAfterBytes, () => {});
  }
  if (reply.hang) return void hanging.add(response);
  if (reply.bodyPieces) {
    hanging.add(response);
    return sendPieces(response, reply, reply.bodyPieces());
  }
  sendJson(response, reply.status ?? 200, reply.body, reply.headers);
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

/** What the model was told last by a tool: the content of the request's newest tool message ('' if none). */
export const lastToolMessage = (request: ChatRequest): string =>
  String(request.messages.findLast((message) => message.role === 'tool')?.content ?? '');
