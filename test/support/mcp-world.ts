/**
 * The fixture of a test of MCP tools through the bot: a connection to an MCP server (the test
 * server of mcp-test-server.ts unless another config is given, with its short timings) and the bot,
 * in this process, offering that server's tools. Both are closed after each test, the bot first.
 *
 *   const mcp = useMcpWorld();
 *   const w = await mcp.start(testServerConfig('test'), { toolConfirmMs: 60_000 });
 */
import { afterEach } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import { type BotWorld, startBotWorld } from './bot-harness.ts';
import { testTimings } from './mcp-test-server.ts';

type BotWorldArguments = Parameters<typeof startBotWorld>;

export interface McpWorld {
  /**
   * Connects to `config`'s server, then starts the bot with startBotWorld's `settings`, `agent`,
   * `client` and `extra`, with the server as `extra.toolServers`.
   */
  start(
    config: McpServerConfig,
    settings?: BotWorldArguments[0],
    agent?: BotWorldArguments[1],
    client?: BotWorldArguments[2],
    extra?: BotWorldArguments[3],
  ): Promise<BotWorld>;
}

/** Registers the teardown (afterEach) in the file or describe block it is called in. */
export function useMcpWorld(): McpWorld {
  let world: BotWorld | undefined;
  let server: McpConnection | undefined;
  afterEach(async () => {
    await world?.close();
    await server?.close();
    world = undefined;
    server = undefined;
  });
  return {
    async start(config, settings = {}, agent = {}, client = {}, extra = {}) {
      server = new McpConnection(config, silentLogger, testTimings);
      await server.start();
      world = await startBotWorld(settings, agent, client, { ...extra, toolServers: [server] });
      return world;
    },
  };
}
