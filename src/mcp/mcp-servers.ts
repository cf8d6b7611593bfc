/** Every MCP server of the configuration, started together and closed together. */
import type { Logger } from '../agent/logger.ts';
import type { McpServerConfig } from './mcp-config.ts';
import { defaultMcpTimings, McpConnection, type McpTimings } from './mcp-connection.ts';

export interface McpServers {
  connections: readonly McpConnection[];
  close(): Promise<void>;
}

/**
 * Starts every server and waits for each one's first attempt (bounded by the start timeout), so
 * that the tools of the servers that came up are there from the first message. One that failed is
 * retried in the background; none of them can stop the bot from starting.
 */
export async function startMcpServers(configs: readonly McpServerConfig[], logger: Logger, timings: McpTimings = defaultMcpTimings): Promise<McpServers> {
  const connections = configs.map((config) => new McpConnection(config, logger, timings));
  await Promise.all(connections.map((connection) => connection.start()));
  return {
    connections,
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
