/** Every MCP server of the configuration, started together and closed together. */
import type { Logger } from '../agent/logger.ts';
import type { McpServerConfig } from './mcp-config.ts';
import type { McpConnection } from './mcp-connection.ts';

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

/**
 * The servers, not yet started: closing them is possible from the first moment. The MCP SDK and
 * ajv (a sixth of the bot's start-up when loaded) are loaded only when MCP_CONFIG names a server.
 */
export async function loadMcpServers(configs: readonly McpServerConfig[], logger: Logger): Promise<McpServers> {
  let connections: McpConnection[] = [];
  if (configs.length > 0) {
    const { McpConnection } = await import('./mcp-connection.ts');
    connections = configs.map((config) => new McpConnection(config, logger));
  }
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
