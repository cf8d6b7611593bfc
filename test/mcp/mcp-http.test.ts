import { createServer, type Server } from 'node:http';
import { waitUntil } from '../support/wait-until.ts';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../../src/agent/logger.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import type { ToolContext } from '../../src/agent/tool.ts';

let http: Server | undefined;
let connection: McpConnection | undefined;
afterEach(async () => {
  await connection?.close();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
});

/** A stateless streamable-HTTP MCP server on 127.0.0.1 that records the headers it was sent. */
async function startHttpServer(
  port = 0,
): Promise<{ url: string; headers: Record<string, string | string[] | undefined>[] }> {
  const headers: Record<string, string | string[] | undefined>[] = [];
  http = createServer((request, response) => {
    headers.push(request.headers);
    const server = new McpServer({ name: 'http-test', version: '1.0.0' });
    server.registerTool(
      'shout',
      { description: 'Says the text louder.', inputSchema: { text: z.string() } },
      ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void transport.close());
    void server.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => http!.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, headers };
}

it('reaches a streamable HTTP server by its url, sending the configured headers, and calls its tools', async () => {
  const server = await startHttpServer();
  connection = new McpConnection(
    {
      name: 'web',
      transport: 'http',
      sse: false,
      url: server.url,
      headers: { 'X-Api-Key': 'key-for-the-mcp-server' },
      moderatorOnly: false,
    },
    silentLogger,
  );
  await connection.start();

  expect(connection.status()).toEqual({ state: 'up' });
  const shout = connection.tools().find((tool) => tool.name === 'web__shout')!;
  const signal = AbortSignal.timeout(5_000);
  const context = {
    conversationId: 'c',
    guildId: null,
    channelId: null,
    requester: { id: '1', displayName: 'Ada', isModerator: false },
    logger: silentLogger,
    signal,
  };
  expect(await shout.execute({ text: 'hello' }, context)).toBe('HELLO');
  expect(server.headers.every((sent) => sent['x-api-key'] === 'key-for-the-mcp-server')).toBe(true);
});

it('notices an HTTP server that went away (a failed call, then no answer to a ping) and reconnects when it is back', async () => {
  const first = await startHttpServer();
  const port = Number(new URL(first.url).port);
  const timings = {
    startTimeoutMs: 5_000,
    pingTimeoutMs: 1_000,
    firstBackoffMs: 200,
    maxBackoffMs: 200,
    stableAfterMs: 60_000,
  };
  connection = new McpConnection(
    { name: 'web', transport: 'http', sse: false, url: first.url, headers: {}, moderatorOnly: false },
    silentLogger,
    timings,
  );
  await connection.start();
  const context = (): ToolContext => ({
    conversationId: 'c',
    guildId: null,
    channelId: null,
    requester: { id: '1', displayName: 'Ada', isModerator: false },
    logger: silentLogger,
    signal: AbortSignal.timeout(5_000),
  });
  const shout = () => connection!.tools().find((tool) => tool.name === 'web__shout')!;

  http!.closeAllConnections();
  await new Promise((resolve) => http!.close(resolve));
  await expect(shout().execute({ text: 'anyone?' }, context())).rejects.toThrow(
    /^the web MCP server could not run shout: /,
  );
  await waitUntil(() => connection!.status().state === 'down', 'the connection seen down');
  expect(connection.status()).toMatchObject({ reason: 'it stopped answering; restarting' });

  await startHttpServer(port);
  await waitUntil(() => connection!.status().state === 'up', 'the connection up again');
  expect(await shout().execute({ text: 'back' }, context())).toBe('BACK');
});
