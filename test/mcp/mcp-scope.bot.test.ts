/**
 * A scoped MCP server's sessions: started at a scope's first call, told their scope, capped in
 * number (refused past it, clearly), and stopped when unused.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/agent/tool.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { type McpScoping, type McpServerConfig, parseMcpConfig } from '../../src/mcp/mcp-config.ts';
import type { McpTimings } from '../../src/mcp/mcp-connection.ts';
import { ScopedMcpServer } from '../../src/mcp/scoped-server.ts';
import { testServerConfig, testTimings } from '../support/mcp-test-server.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { waitUntil } from '../support/wait-until.ts';

const timings: McpTimings = { ...testTimings, firstBackoffMs: 100, maxBackoffMs: 400 };
const open: ScopedMcpServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

const inGuild = (guildId: string | null, conversationId = `thread-of-${guildId}`): ToolContext => ({
  conversationId,
  guildId,
  channelId: null,
  requester: { id: '1', displayName: 'Ada', isModerator: false },
  logger: silentLogger,
  signal: AbortSignal.timeout(15_000),
});

async function scoped(scoping: Partial<McpScoping> = {}, config: McpServerConfig = testServerConfig('test')) {
  const { logger, lines } = recordingLogger();
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-scope-')));
  const server = new ScopedMcpServer(
    { ...config, scoping: { scope: 'server', maxSessions: 5, idleMinutes: 10, ...scoping } },
    logger,
    root,
    timings,
  );
  open.push(server);
  await server.start();
  const call = async (tool: string, context: ToolContext) =>
    server
      .tools()
      .find((each) => each.name === `test__${tool}`)!
      .execute({}, context);
  return { server, root, lines, call };
}

describe('a scoped MCP server', () => {
  it('reads a resource in the session of the caller’s scope, as its tools run', async () => {
    const { server } = await scoped();
    const read = server.tools().find((each) => each.name === 'test__read_resource')!;
    expect(await read.execute({ uri: 'test://archive.bin' }, inGuild('g1'))).toContain('[binary data, 3 KB');
    expect(server.sessionCount()).toBe(1);
    await read.execute({ uri: 'test://archive.bin' }, inGuild('g2'));
    expect(server.sessionCount()).toBe(2);
  });

  it('lists its tools at start, and starts a session at each scope’s first call, in its own directory, named in MCP_SCOPE_ID', async () => {
    const { server, root, call } = await scoped();
    expect(server.status()).toEqual({ state: 'up' });
    expect(server.sessionCount()).toBe(0);

    const first = JSON.parse(String(await call('environment', inGuild('111')))) as Record<string, string>;
    const second = JSON.parse(String(await call('environment', inGuild('222')))) as Record<string, string>;
    expect(first).toMatchObject({ MCP_SCOPE_ID: 'server-111', MCP_SCOPE_DIR: join(root, 'server-111') });
    expect(second).toMatchObject({ MCP_SCOPE_ID: 'server-222', MCP_SCOPE_DIR: join(root, 'server-222') });
    expect(server.sessionCount()).toBe(2);
    await call('environment', inGuild('111', 'another thread'));
    expect(server.sessionCount()).toBe(2);
  });

  it('scope "conversation": one session per conversation, in the same Discord server too', async () => {
    const { server, call } = await scoped({ scope: 'conversation' });
    const first = JSON.parse(String(await call('environment', inGuild('111', '900')))) as Record<string, string>;
    await call('environment', inGuild('111', '901'));
    expect(first.MCP_SCOPE_ID).toBe('conversation-900');
    expect(server.sessionCount()).toBe(2);
  });

  it('refuses a scope past maxSessions, saying why, and takes it once a session stopped unused', async () => {
    const { server, lines, call } = await scoped({ maxSessions: 1, idleMinutes: 0.01 });
    await call('environment', inGuild('111'));
    // Within the idle time of the first session (0.6 s), a second Discord server is refused.
    await expect(call('environment', inGuild('222'))).rejects.toMatchObject({
      userMessage:
        'the test MCP server already runs as many sessions as it may (maxSessions: 1, one per Discord server); try again once one has been unused for 0.01 minutes',
    });
    await waitUntil(() => server.sessionCount() === 0, 'the unused session stopped');
    expect(lines.some((line) => line.msg === 'MCP session stopped: unused')).toBe(true);
    await call('environment', inGuild('222'));
    expect(server.sessionCount()).toBe(1);
  });

  it('fills ${MCP_SCOPE_DIR} and ${MCP_SCOPE_ID} in its args and env for each session', async () => {
    const parsed = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          test: {
            ...testServerConfig('test'),
            env: { MEMORY_FILE_PATH: '${MCP_SCOPE_DIR}/memory.jsonl', TOKEN: '${TOKEN}' },
            scope: 'server',
            maxSessions: 3,
          },
        },
      })
        .replace('"transport":"stdio",', '')
        .replace('"name":"test",', ''),
      { TOKEN: 'sk-1' },
    );
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    expect(parsed.servers[0]!.scoping).toEqual({ scope: 'server', maxSessions: 3, idleMinutes: 15 });
    const { root, call } = await scoped({}, parsed.servers[0]!);
    const env = JSON.parse(String(await call('environment', inGuild('111')))) as Record<string, string>;
    expect(env).toMatchObject({ MEMORY_FILE_PATH: join(root, 'server-111', 'memory.jsonl'), TOKEN: 'sk-1' });
  });
});

describe('a scoped url server (streamable HTTP)', () => {
  it('is accepted by MCP_CONFIG and has a session of its own per Discord server', async () => {
    const sessions = new Set<string>();
    const http = createServer((request, response) => {
      const id = request.headers['mcp-session-id'];
      if (typeof id === 'string') sessions.add(id);
      void handle(request, response);
    });
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const handle = async (request: IncomingMessage, response: ServerResponse) => {
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (!transport) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (made) => void transports.set(made, transport!),
        });
        const server = new McpServer({ name: 'scoped-http', version: '1.0.0' });
        server.registerTool('ping', { description: 'Pong.' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
        await server.connect(transport);
      }
      await transport.handleRequest(request, response);
    };
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const parsed = parseMcpConfig(JSON.stringify({ mcpServers: { web: { url, scope: 'server' } } }));
      if (!parsed.ok) throw new Error(parsed.problems.join('; '));
      expect(parsed.servers[0]).toMatchObject({ transport: 'http', url, scoping: { scope: 'server' } });

      const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-scope-')));
      const config = parsed.servers[0]!;
      if (!config.scoping) throw new Error('not scoped');
      const server = new ScopedMcpServer({ ...config, scoping: config.scoping }, silentLogger, root, timings);
      open.push(server);
      await server.start();
      const ping = (guild: string) =>
        server
          .tools()
          .find((tool) => tool.name === 'web__ping')!
          .execute({}, inGuild(guild));
      expect(await ping('g1')).toBe('pong');
      expect(await ping('g2')).toBe('pong');
      expect(await ping('g1')).toBe('pong');
      expect(server.sessionCount()).toBe(2);
      // The listing's own session, and one for each Discord server: never one shared by both.
      expect(sessions.size).toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all(open.splice(0).map((server) => server.close()));
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
