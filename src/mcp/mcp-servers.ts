/** Every MCP server of the configuration, started together and closed together. */
import type { Logger } from '../agent/logger.ts';
import type { McpServerConfig } from './mcp-config.ts';
import { defaultMcpTimings, McpConnection, type McpTimings } from './mcp-connection.ts';

export interface McpServers {
  connections: readonly McpConnection[];
  /**
   * Starts every server and waits for each one's first attempt (bounded by its start timeout), so
   * that the tools of the servers that came up are there from the first message. One that failed
   * is retried in the background; none of them can stop the bot from starting.
   */
  start(): Promise<void>;
  /** Stops every server, those still starting included. */
  close(): Promise<void>;
}

/** The servers, not yet started: closing them is possible from the first moment. */
export function mcpServers(
  configs: readonly McpServerConfig[],
  logger: Logger,
  timings: McpTimings = defaultMcpTimings,
): McpServers {
  const connections = configs.map((config) => new McpConnection(config, logger, timings));
  return {
    connections,
    start: async () => {
      await Promise.all(connections.map((connection) => connection.start()));
    },
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
