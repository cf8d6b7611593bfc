/**
 * The quirk mode: a fake model server that behaves like a real one with its quirks. The model's
 * intent (scripted, or `followInstructions`) is rendered as the server renders it, and requests are
 * refused as the server refuses them. Each quirk, with its source, is in ../model-servers/quirks.ts.
 * Like the scripted mode, `close()` throws for requests nobody scripted and steps left over.
 */
import type { Intent, SeenRequest } from '../model-servers/brain.ts';
import { llamacppGrammarFault } from '../model-servers/llamacpp-grammar.ts';
import type { Quirk } from '../model-servers/quirk-rendering.ts';
import { chunkCount, type StreamPacing, streamRendered } from './quirk-stream.ts';
import { isChatRequest, Script } from './script.ts';
import { chatCompletion, type Exchange, sendJson, startModelServer } from './server.ts';

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

export interface FakeServerOptions extends StreamPacing {
  /** The models it serves (GET /v1/models, and a chat request for another one is a 404). */
  models?: string[];
  /** When set, a request without this key is refused with 401. */
  apiKey?: string;
  /** The first streamed reply is cut (its connection destroyed) after this many chunks. */
  cutFirstStreamAfterChunks?: number;
  /** The tools' schemas made into a grammar as llama-server b8291 did: a crash or a refusal (model-servers/llamacpp-grammar.ts). */
  grammar?: 'llama.cpp';
}

export async function startFakeModelServer(quirk: Quirk, options: FakeServerOptions = {}): Promise<FakeModelServer> {
  const models = options.models ?? ['test-model'];
  const requests: SeenRequest[] = [];
  const state = new Map<string, unknown>();
  let counter = 0;
  let streamsSent = 0;

  const server = await startModelServer(async (exchange) => {
    const { request, response } = exchange;
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? request.headers['api-key'];
    if (options.apiKey && key !== options.apiKey)
      return sendJson(response, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    if (request.method === 'GET' && request.url === '/v1/models')
      return sendJson(response, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', owned_by: quirk.name })),
      });
    if (!isChatRequest(exchange, server.failures)) return;
    const seen = exchange.body as SeenRequest;
    requests.push(seen);
    const refusal = refusalOf(quirk, models, seen, state);
    if (refusal) return sendJson(response, refusal.status, refusal.body);
    const fault = options.grammar === 'llama.cpp' ? llamacppGrammarFault(seen) : null;
    if (fault === 'crash') return void request.socket.destroy();
    if (fault) return sendJson(response, fault.status, fault.body);
    const step = script.next(requests.length, response);
    if (!step) return;
    const intent = typeof step === 'function' ? step(quirk.asSeenByModel?.(seen) ?? seen) : step;
    const rendered = quirk.render(intent, seen, state, () => ++counter);
    if ('status' in rendered) return sendJson(response, rendered.status, rendered.body, { 'x-should-retry': 'false' });
    if (seen.stream === true) {
      const cutAfter = streamsSent++ === 0 ? options.cutFirstStreamAfterChunks : undefined;
      return streamRendered(response, rendered, seen, quirk.streamsCallsWhole === true, { ...options, cutAfter });
    }
    // A model writes at the same pace whether it streams or not: a whole reply waits for all its chunks.
    if (options.streamChunkDelayMs)
      await new Promise((resolve) => setTimeout(resolve, options.streamChunkDelayMs! * chunkCount(rendered)));
    sendWhole(exchange, quirk, `chatcmpl-${counter}`, rendered, quirk.completionFields?.(seen, state));
  });
  const script = new Script<Step>(server.failures, 'fake model server');
  return {
    baseURL: server.baseURL,
    quirk,
    requests,
    enqueue: (...steps) => script.enqueue(...steps),
    otherwise: (step) => script.otherwise(step),
    async close() {
      script.checkLeftOver('steps');
      await server.close(`fake model server (${quirk.name})`);
    },
  };
}

/** Why the server refuses this request before the model sees it (a model it does not serve, the quirk's own rules, an image), or null. */
function refusalOf(
  quirk: Quirk,
  models: string[],
  seen: SeenRequest,
  state: Map<string, unknown>,
): { status: number; body: unknown } | null {
  if (!models.includes(String(seen.model)))
    return {
      status: 404,
      body: {
        error: { message: `model '${String(seen.model)}' not found`, type: 'not_found_error', code: 'model_not_found' },
      },
    };
  return quirk.refuse?.(seen, state) ?? imagesRefused(quirk, seen);
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

/** The rendered reply as one `chat.completion`, with the prompt tokens the quirk says it read. */
function sendWhole(
  { response, body }: Exchange,
  quirk: Quirk,
  id: string,
  rendered: { message: Record<string, unknown>; finishReason: string },
  extra: Record<string, unknown> = {},
): void {
  const seen = body as SeenRequest;
  const promptTokens = quirk.promptTokens?.(seen) ?? 10;
  const completion = chatCompletion({
    id,
    created: Math.floor(Date.now() / 1000),
    model: String(seen.model),
    message: rendered.message,
    finishReason: rendered.finishReason,
    usage: { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 },
  });
  sendJson(response, 200, { ...completion, ...extra });
}
