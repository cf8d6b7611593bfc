/**
 * A server of the older HTTP+SSE transport: reached after streamable HTTP is refused with a 4xx, as
 * the SDK's documented client does, or at once with `type: "sse"`; its tools called over it.
 */
import { afterEach, expect, it } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import type { ToolContext } from '../../src/agent/tool.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import { type SseOnlyServer, startSseOnlyServer } from '../support/mcp-sse-server.ts';

let server: SseOnlyServer | undefined;
let connection: McpConnection | undefined;
afterEach(async () => {
  await connection?.close();
  await server?.close();
});

const context = (): ToolContext => ({
  conversationId: 'test',
  guildId: null,
  channelId: null,
  requester: { id: '1', displayName: 'Ada', isModerator: false },
  logger: silentLogger,
  signal: AbortSignal.timeout(5_000),
});

async function connectTo(sse: boolean): Promise<McpConnection> {
  server = await startSseOnlyServer();
  connection = new McpConnection(
    {
      name: 'old',
      transport: 'http',
      sse,
      url: server.url,
      headers: { 'X-Api-Key': 'key-for-the-mcp-server' },
      moderatorOnly: false,
    },
    silentLogger,
  );
  await connection.start();
  return connection;
}

it('falls back to HTTP+SSE when the server refuses streamable HTTP with a 4xx, and calls its tools over it', async () => {
  const reached = await connectTo(false);
  expect(reached.status()).toEqual({ state: 'up' });
  const shout = reached.tools().find((tool) => tool.name === 'old__shout')!;
  await expect(shout.execute({ text: 'hello' }, context())).resolves.toBe('HELLO');

  // Streamable HTTP's POST first (refused: 404), then the SSE stream and its messages, headers on each.
  expect(server!.requests.slice(0, 3).map(({ method, path }) => `${method} ${path}`)).toEqual([
    'POST /sse',
    'GET /sse',
    'POST /messages',
  ]);
  for (const request of server!.requests) expect(request.headers['x-api-key']).toBe('key-for-the-mcp-server');
});

it('goes straight to HTTP+SSE for type "sse"', async () => {
  const reached = await connectTo(true);
  expect(reached.status()).toEqual({ state: 'up' });
  expect(server!.requests.map(({ method, path }) => `${method} ${path}`)).not.toContain('POST /sse');
  expect(server!.requests[0]).toMatchObject({ method: 'GET', path: '/sse' });
});
