/**
 * An MCP server that speaks only the older HTTP+SSE transport (the SDK's SSEServerTransport), on
 * 127.0.0.1: `GET /sse` opens the event stream, whose first event names `POST /messages`. Anything
 * else is a 404 with an HTML page, as the Express apps of such servers answer ("Cannot POST /sse").
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';

export interface SseOnlyServer {
  /** The address a client is given: the event stream's. */
  url: string;
  /** Each request's method, path and headers, in order. */
  requests: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

export async function startSseOnlyServer(): Promise<SseOnlyServer> {
  const sessions = new Map<string, SSEServerTransport>();
  const requests: SseOnlyServer['requests'] = [];
  const http: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push({ method: request.method ?? '', path: url.pathname, headers: request.headers });
    if (request.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response);
      sessions.set(transport.sessionId, transport);
      response.on('close', () => sessions.delete(transport.sessionId));
      void mcpServer().connect(transport);
      return;
    }
    const session = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (request.method === 'POST' && url.pathname === '/messages' && session) {
      void session.handlePostMessage(request, response);
      return;
    }
    response.writeHead(404, { 'Content-Type': 'text/html' });
    response.end(`<!DOCTYPE html><html><body><pre>Cannot ${request.method} ${url.pathname}</pre></body></html>`);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`,
    requests,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'sse-only', version: '1.0.0' });
  server.registerTool(
    'shout',
    { description: 'Says the text louder.', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
  );
  return server;
}
