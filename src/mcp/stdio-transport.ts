/** An MCP server started over stdio: the environment it is given, and its stderr logged and kept. */
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Logger } from '../agent/logger.ts';
import type { StdioServerConfig } from './mcp-config.ts';
import { logStderr, type StderrTail } from './stderr-log.ts';

/** The transport that starts the server (on connect), and the end of what it writes to stderr. */
export function stdioTransport(
  config: StdioServerConfig,
  logger: Logger,
  masked: (text: string) => string,
): { transport: StdioClientTransport; stderr: StderrTail } {
  // Only the environment its config names, over the SDK's short list of harmless variables
  // (PATH, HOME, USER, …): never the bot's own secrets.
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: 'pipe',
  });
  return { transport, stderr: logStderr(transport.stderr, logger, config.name, masked) };
}
