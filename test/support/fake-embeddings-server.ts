/**
 * A fake embeddings server on 127.0.0.1: OpenAI's `POST /v1/embeddings`
 * (https://platform.openai.com/docs/api-reference/embeddings/create), a string or a batch of them
 * in `input`, answered with `encoding_format: "float"` vectors in input order. The vectors are
 * hashed bags of words (each word, lower-cased and with a plural "s" cut, adds 1 to one of `dimensions`
 * coordinates; then scaled to length 1): texts sharing words point the same way, so a search by
 * vectors finds what shares the question's words, whatever their order. That measures the
 * plumbing (batching, storage, distance, fusion), not what a real model understands. Each request
 * and each reply is checked against OpenAI's spec (specs/openai-embeddings.schema.json:
 * CreateEmbeddingRequest, CreateEmbeddingResponse); a breach is a failure `close()` throws. It
 * records every request; `down` fails each request as `downAs` says (a 500, a 429, a hang, or the
 * connection cut); a model outside `models` gets the 404 OpenAI gives.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { EmbeddingsClient } from '../../src/knowledge/embeddings-client.ts';
import { type ModelServer, sendJson, startModelServer } from './fake-model/server.ts';

const schema = JSON.parse(
  readFileSync(new URL('./specs/openai-embeddings.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schema, 'embeddings');
const validRequest = ajv.compile({ $ref: 'embeddings#/$defs/CreateEmbeddingRequest' });
const validResponse = ajv.compile({ $ref: 'embeddings#/$defs/CreateEmbeddingResponse' });

export interface EmbeddingsRequest {
  model: string;
  input: string | string[];
  encoding_format?: string;
}

export interface FakeEmbeddingsServer {
  /** Ends in /v1: EMBEDDING_BASE_URL. */
  baseURL: string;
  /** Every request's body, in order. */
  requests: EmbeddingsRequest[];
  /** While true, every request fails as `downAs` says. */
  down: boolean;
  /**
   * How a request fails while `down`: 'error' a 500 the client is told not to retry, 'rate-limited'
   * a 429 (which the SDK would retry), 'hang' no answer at all, 'cut' the connection closed unanswered.
   */
  downAs: 'error' | 'rate-limited' | 'hang' | 'cut';
  close(): Promise<void>;
}

export interface FakeEmbeddingsOptions {
  /** The models it knows; another gets a 404 `model_not_found`. */
  models?: string[];
  dimensions?: number;
}

/** The fake's vector of a text (exported for tests that compare). */
export function fakeEmbedding(text: string, dimensions = 256): number[] {
  const vector = Array.from({ length: dimensions }, () => 0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const stem = word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
    vector[hash(stem) % dimensions]! += 1;
  }
  const length = Math.hypot(...vector) || 1;
  return vector.map((value) => value / length);
}

/** FNV-1a, 32 bits: a stable spread of words over the coordinates. */
function hash(word: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < word.length; index++) value = Math.imul(value ^ word.charCodeAt(index), 0x01000193) >>> 0;
  return value;
}

export async function startFakeEmbeddingsServer(options: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddingsServer> {
  const models = options.models ?? ['fake-embed-1', 'fake-embed-2'];
  const dimensions = options.dimensions ?? 256;
  const fake: FakeEmbeddingsServer = {
    baseURL: '',
    requests: [],
    down: false,
    downAs: 'error',
    close: () => server.close('fake embeddings server'),
  };
  const server: ModelServer = await startModelServer(({ request, response, body }) => {
    if (request.method !== 'POST' || request.url !== '/v1/embeddings')
      return sendJson(response, 404, { error: { message: `no route ${request.method} ${request.url}` } });
    const asked = body as EmbeddingsRequest;
    if (!validRequest(body))
      server.failures.push(`embeddings request breaks the spec: ${ajv.errorsText(validRequest.errors)}`);
    fake.requests.push(asked);
    if (fake.down) return failRequest(fake.downAs, server, response);
    if (!models.includes(asked.model))
      return sendJson(response, 404, {
        error: {
          message: `The model '${asked.model}' does not exist`,
          type: 'invalid_request_error',
          code: 'model_not_found',
        },
      });
    const inputs = typeof asked.input === 'string' ? [asked.input] : asked.input;
    const reply = {
      object: 'list',
      model: asked.model,
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, dimensions) })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    };
    if (!validResponse(reply))
      server.failures.push(`the fake's embeddings reply breaks the spec: ${ajv.errorsText(validResponse.errors)}`);
    sendJson(response, 200, reply);
  });
  fake.baseURL = server.baseURL;
  return fake;
}

/** A request while the server is down, failed the way asked. */
function failRequest(how: FakeEmbeddingsServer['downAs'], server: ModelServer, response: ServerResponse): void {
  if (how === 'hang') return void server.hanging.add(response);
  if (how === 'cut') return void response.socket?.destroy();
  if (how === 'rate-limited')
    return sendJson(
      response,
      429,
      { error: { message: 'slow down', type: 'rate_limit_error' } },
      { 'retry-after-ms': '10' },
    );
  sendJson(response, 500, { error: { message: 'the server is down' } }, { 'x-should-retry': 'false' });
}

/**
 * The fake server's vectors made in the process, as an EmbeddingsClient: for tests about what is
 * stored and found rather than what is sent, and for benches that time the database, not HTTP.
 */
export function inProcessEmbeddings(model = 'fake-embed-1', dimensions = 64): EmbeddingsClient {
  return {
    model,
    batchSize: 32,
    embed: async (texts) => texts.map((text) => Float32Array.from(fakeEmbedding(text, dimensions))),
  };
}
