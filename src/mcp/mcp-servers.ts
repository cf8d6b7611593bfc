/** Every MCP server of the configuration, started together and closed together. */
import { dirname, join } from 'node:path';
import type { Logger } from '../agent/logger.ts';
import type { ToolServer } from '../agent/tool.ts';
import type { McpServerConfig } from './mcp-config.ts';

/** A server of the configuration: one connection, or (scoped) one session per scope. */
interface McpToolServer extends ToolServer {
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface McpServers {
  connections: readonly McpToolServer[];
  /**
   * Starts every server and waits for each one's first attempt (bounded by its start timeout), so
   * that the tools of the servers that came up are there from the first message. One that failed
   * is retried in the background; none of them can stop the bot from starting.
   */
  start(): Promise<void>;
  /** Stops every server, those still starting included. */
  close(): Promise<void>;
}

/** Where scoped servers' sessions work, by default: `mcp-scopes/` beside the database. */
export function mcpScopeRoot(databasePath: string): string {
  return join(dirname(databasePath), 'mcp-scopes');
}

/**
 * The servers, not yet started: closing them is possible from the first moment. The MCP SDK and
 * ajv (a sixth of the bot's start-up when loaded) are loaded only when MCP_CONFIG names a server.
 * `scopeRoot`: where scoped servers' sessions get their working directories (beside the database),
 * unless an entry's `cwd` says where.
 */
export async function loadMcpServers(
  configs: readonly McpServerConfig[],
  logger: Logger,
  scopeRoot: string,
): Promise<McpServers> {
  let connections: McpToolServer[] = [];
  if (configs.length > 0) {
    const { McpConnection } = await import('./mcp-connection.ts');
    const { ScopedMcpServer } = await import('./scoped-server.ts');
    connections = configs.map((config) =>
      config.scoping === undefined
        ? new McpConnection(config, logger)
        : new ScopedMcpServer(
            { ...config, scoping: config.scoping },
            logger,
            (config.transport === 'stdio' ? config.cwd : undefined) ?? join(scopeRoot, config.name),
          ),
    );
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
