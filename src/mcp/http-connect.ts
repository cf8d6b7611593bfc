/**
 * Reaching an MCP server over HTTP, as the SDK's documented client does: streamable HTTP first, and
 * the older HTTP+SSE transport when the server refuses it with a 4xx (a server of the old transport
 * answers the POST with 404 or 405), or at once for `type: "sse"`. The spec's backwards
 * compatibility: https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#backwards-compatibility;
 * the SDK's pattern: its README's "Backwards-compatible client (Streamable HTTP → SSE)",
 * src/examples/client/streamableHttpWithSseFallbackClient.ts in modelcontextprotocol/typescript-sdk.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { errorMessage } from '../agent/errors.ts';
import type { HttpServerConfig } from './mcp-config.ts';

/**
 * Connects `first` to the server, or, after a 4xx to streamable HTTP, a client from `nextClient`
 * (as the SDK's example does, a fresh one: a client whose connect failed has closed itself) over
 * HTTP+SSE. Resolves to the client connected.
 */
export async function connectOverHttp(
  config: HttpServerConfig,
  first: Client,
  nextClient: () => Client,
  { fetch, ...options }: { timeout: number; fetch: FetchLike },
): Promise<Client> {
  const url = new URL(config.url);
  // The headers go with the SSE stream's GET too (SSEClientTransport adds requestInit's headers to it).
  const requestInit = { headers: config.headers };
  if (config.sse) {
    await first.connect(new SSEClientTransport(url, { requestInit }), options);
    return first;
  }
  try {
    // `fetch` reads which call's stream brings a server's request (call-streams.ts).
    await first.connect(new StreamableHTTPClientTransport(url, { requestInit, fetch }), options);
    return first;
  } catch (error) {
    if (!refusedByServer(error)) throw error;
    await first.close().catch(() => undefined);
    const second = nextClient();
    try {
      await second.connect(new SSEClientTransport(url, { requestInit }), options);
      return second;
    } catch (sseError) {
      throw new Error(
        `HTTP+SSE failed (${errorMessage(sseError)}) after streamable HTTP was refused (${errorMessage(error)})`,
        { cause: sseError },
      );
    }
  }
}

function refusedByServer(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;
}
