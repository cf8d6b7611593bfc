/**
 * The one HTTP server under every mode of the fake model (fake-model.ts lists them): it listens on
 * 127.0.0.1, reads each request's body, hands it to the mode, records the mode's failures, and at
 * `close()` ends every connection and throws for the failures. What to answer is the mode's.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a mode sees it: its body already read (JSON, or text when it is not JSON). */
export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  body: unknown;
}

export interface ModelServer {
  port: number;
  /** Ends in /v1, as OPENAI_BASE_URL does. */
  baseURL: string;
  /** What went wrong, in order; `close()` throws for them. */
  failures: string[];
  /** Responses a mode leaves open on purpose (a hang): destroyed at `close()`. */
  hanging: Set<ServerResponse>;
  /** Ends every connection and stops; then throws, under `label`, for the failures recorded. */
  close(label: string): Promise<void>;
}

export interface ServerOptions {
  /** How long an idle keep-alive connection stays open (Node's default, 5 s, when not given). */
  keepAliveTimeoutMs?: number;
}

export async function startModelServer(
  answer: (exchange: Exchange) => Promise<void> | void,
  options: ServerOptions = {},
): Promise<ModelServer> {
  const failures: string[] = [];
  const hanging = new Set<ServerResponse>();
  // Node does not await a request listener, so a rejection would go unhandled: it is recorded as a
  // failure instead, unless the client went away before its request was whole (nobody to answer).
  const server = createServer((request, response) => {
    readJson(request)
      .then((body) => answer({ request, response, body }))
      .catch((error: unknown) => {
        if (request.complete)
          failures.push(`${request.method} ${request.url}: the fake model failed: ${String(error)}`);
        response.destroy();
      });
  });
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    baseURL: `http://127.0.0.1:${port}/v1`,
    failures,
    hanging,
    async close(label) {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (failures.length > 0) throw new Error(`${label}:\n${failures.join('\n')}`);
    },
  };
}

/**
 * A request's body as JSON, or as text when it is not JSON (null when empty). Read from the
 * stream's events rather than its async iterator: the bench's mode answers thousands of requests.
 */
export function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', reject);
    request.on('close', () => {
      if (!request.complete) reject(new Error('the client went away before its request was whole'));
    });
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? null : JSON.parse(text));
      } catch {
        resolve(text);
      }
    });
  });
}

/** Sends `body` as JSON (a string goes as it is, to send something that is not JSON). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(typeof body === 'string' ? body : JSON.stringify(body ?? {}));
}

/** One `data:` event of a streamed completion (a `chat.completion.chunk`) carrying `fields`. */
export function chunkEvent(id: string, model: string, fields: object): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, ...fields })}\n\n`;
}

/** A whole `chat.completion` holding one choice. */
export function chatCompletion(fields: {
  id: string;
  model: string;
  message: object;
  finishReason: string;
  usage: object;
  created?: number;
}): object {
  return {
    id: fields.id,
    object: 'chat.completion',
    created: fields.created ?? 0,
    model: fields.model,
    choices: [{ index: 0, message: fields.message, finish_reason: fields.finishReason, logprobs: null }],
    usage: fields.usage,
  };
}
