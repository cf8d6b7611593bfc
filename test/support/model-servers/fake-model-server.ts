/**
 * A fake OpenAI-compatible model server on 127.0.0.1 that behaves like a real one with its quirks:
 * the model's intent (scripted, or `followInstructions`) is rendered as the server renders it, and
 * requests are refused as the server refuses them. Each quirk, with its source, is in quirks.ts.
 * Like the scripted model, `close()` throws for requests nobody scripted and replies left over.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJson } from '../scripted-model.ts';
import type { Intent, SeenRequest } from './brain.ts';
import type { Quirk, Rendered } from './quirk-rendering.ts';

export type Step = Intent | ((request: SeenRequest) => Intent);

export interface FakeModelServer {
  /** Ends in /v1, as OPENAI_BASE_URL does. */
  baseURL: string;
  quirk: Quirk;
  /** Every chat request body, in order. */
  requests: SeenRequest[];
  enqueue(...steps: Step[]): void;
  /** The model for requests the script has no step for (none: such a request is a test failure). */
  otherwise(step: ((request: SeenRequest) => Intent) | null): void;
  close(): Promise<void>;
}

export interface FakeServerOptions {
  /** The models it serves (GET /v1/models, and a chat request for another one is a 404). */
  models?: string[];
  /** When set, a request without this key is refused with 401. */
  apiKey?: string;
  /** A streamed reply waits this long between two chunks (a model writing at its pace). */
  streamChunkDelayMs?: number;
  /** Told each streamed chunk as it is sent (its place in the stream, from 0), for the benches. */
  onStreamChunk?(index: number): void;
  /** The first streamed reply is cut (its connection destroyed) after this many chunks. */
  cutFirstStreamAfterChunks?: number;
  /** A streamed reply stops after this many chunks until `until` resolves (a test's fact, not a time). */
  streamPause?: { afterChunks: number; until: () => Promise<unknown> };
}

export async function startFakeModelServer(quirk: Quirk, options: FakeServerOptions = {}): Promise<FakeModelServer> {
  const models = options.models ?? ['test-model'];
  const script: Step[] = [];
  const requests: SeenRequest[] = [];
  const failures: string[] = [];
  const state = new Map<string, unknown>();
  let fallback: ((request: SeenRequest) => Intent) | null = null;
  let counter = 0;
  let streamsSent = 0;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      failures.push(`${request.method} ${request.url}: ${String(error)}`);
      response.destroy();
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJson(request);
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? request.headers['api-key'];
    if (options.apiKey && key !== options.apiKey)
      return send(response, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    if (request.method === 'GET' && request.url === '/v1/models')
      return send(response, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', owned_by: quirk.name })),
      });
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      failures.push(`unexpected ${request.method} ${request.url}`);
      return send(response, 404, { error: { message: 'not found' } });
    }
    const seen = body as SeenRequest;
    requests.push(seen);
    if (!models.includes(String(seen.model)))
      return send(response, 404, {
        error: { message: `model '${String(seen.model)}' not found`, type: 'not_found_error', code: 'model_not_found' },
      });
    const refusal = quirk.refuse?.(seen, state) ?? imagesRefused(quirk, seen);
    if (refusal) return send(response, refusal.status, refusal.body);
    const step = script.shift() ?? fallback;
    if (!step) {
      failures.push(`unexpected request ${requests.length}: the script is empty`);
      return send(
        response,
        500,
        { error: { message: 'fake model server: no reply scripted' } },
        { 'x-should-retry': 'false' },
      );
    }
    const intent = typeof step === 'function' ? step(quirk.asSeenByModel?.(seen) ?? seen) : step;
    const rendered = quirk.render(intent, seen, state, () => ++counter);
    if ('status' in rendered) return send(response, rendered.status, rendered.body, { 'x-should-retry': 'false' });
    if (seen.stream === true) {
      const cutAfter = streamsSent++ === 0 ? options.cutFirstStreamAfterChunks : undefined;
      return stream(response, rendered, seen, quirk.streamsCallsWhole === true, { ...options, cutAfter });
    }
    // A model writes at the same pace whether it streams or not: a whole reply waits for all its chunks.
    if (options.streamChunkDelayMs)
      await new Promise((resolve) => setTimeout(resolve, options.streamChunkDelayMs! * chunkCount(rendered)));
    send(response, 200, {
      id: `chatcmpl-${counter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: seen.model,
      choices: [{ index: 0, message: rendered.message, finish_reason: rendered.finishReason }],
      usage: {
        prompt_tokens: quirk.promptTokens?.(seen) ?? 10,
        completion_tokens: 5,
        total_tokens: (quirk.promptTokens?.(seen) ?? 10) + 5,
      },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    quirk,
    requests,
    enqueue: (...steps) => void script.push(...steps),
    otherwise: (step) => void (fallback = step),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (script.length > 0) failures.push(`${script.length} scripted steps were never requested`);
      if (failures.length > 0) throw new Error(`fake model server (${quirk.name}):\n${failures.join('\n')}`);
    },
  };
}

/** A server without image input refuses a request that carries one. */
function imagesRefused(quirk: Quirk, request: SeenRequest): { status: number; body: unknown } | null {
  if (quirk.images !== false) return null;
  const image = request.messages.some(
    (message) =>
      Array.isArray(message.content) &&
      (message.content as { type: string }[]).some((part) => part.type === 'image_url'),
  );
  return image
    ? {
        status: 400,
        body: { error: { message: 'image input is not supported by this model', type: 'invalid_request_error' } },
      }
    : null;
}

/**
 * The reply as server-sent events, as OpenAI streams it (platform.openai.com/docs/api-reference/
 * chat-streaming): the content in small pieces, then each call's id and name, then its arguments in small pieces
 * (whole, for a server that sends each call in one chunk, as Ollama does: ollama/ollama#11633),
 * the finish reason, and the usage in a last chunk without choices when `stream_options` asks.
 */
/** The chunks `stream` sends for a reply (as it cuts content and arguments: 7 characters each). */
function chunkCount(rendered: Extract<Rendered, { message: unknown }>): number {
  const message = rendered.message as {
    content?: string | null;
    tool_calls?: { function: { arguments: string } }[] | null;
  };
  const calls = (message.tool_calls ?? []).reduce(
    (sum, call) => sum + 1 + Math.ceil(call.function.arguments.length / 7),
    0,
  );
  return 2 + Math.ceil((message.content ?? '').length / 7) + calls;
}

async function stream(
  response: ServerResponse,
  rendered: Extract<Rendered, { message: unknown }>,
  request: SeenRequest,
  callsWhole: boolean,
  options: FakeServerOptions & { cutAfter?: number },
): Promise<void> {
  let sent = 0;
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (payload: Record<string, unknown>) =>
    response.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-stream', object: 'chat.completion.chunk', created: 0, model: request.model, ...payload })}\n\n`,
    );
  const chunk = async (delta: Record<string, unknown>, finish: string | null = null) => {
    if (options.streamChunkDelayMs) await new Promise((resolve) => setTimeout(resolve, options.streamChunkDelayMs));
    if (++sent === options.streamPause?.afterChunks) await options.streamPause.until();
    if (response.destroyed) return;
    if (sent - 1 === options.cutAfter) {
      response.destroy();
      return;
    }
    options.onStreamChunk?.(sent - 1);
    send({ choices: [{ index: 0, delta, finish_reason: finish }] });
  };
  await chunk({ role: 'assistant', content: '' });
  const message = rendered.message as {
    content?: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string }; extra_content?: unknown }[] | null;
  };
  // Text comes as a model writes it: a few characters at a time (calls written in it too).
  for (let at = 0; at < (message.content ?? '').length; at += 7)
    await chunk({ content: message.content!.slice(at, at + 7) });
  for (const [index, toolCall] of (message.tool_calls ?? []).entries()) {
    const head = { index, id: toolCall.id, type: 'function', extra_content: toolCall.extra_content };
    if (callsWhole) {
      await chunk({ tool_calls: [{ ...head, function: toolCall.function }] });
      continue;
    }
    await chunk({ tool_calls: [{ ...head, function: { name: toolCall.function.name, arguments: '' } }] });
    const args = toolCall.function.arguments;
    for (let at = 0; at < args.length; at += 7)
      await chunk({ tool_calls: [{ index, function: { arguments: args.slice(at, at + 7) } }] });
  }
  await chunk({}, rendered.finishReason);
  if ((request.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
    send({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  response.end('data: [DONE]\n\n');
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
