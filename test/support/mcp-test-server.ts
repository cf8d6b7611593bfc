/** How tests start the MCP server of `mcp-server.ts`: its config entry, as MCP_CONFIG would hold it. */
import type { McpTimings } from '../../src/mcp/mcp-connection.ts';
import type { StdioServerConfig } from '../../src/mcp/mcp-config.ts';
import { projectRoot, tsxLoader } from './run-process.ts';

export type TestServerMode = 'serve' | 'hang-on-start' | 'exit-on-start' | 'noisy' | 'tell-env' | 'log-every-level';

export const testServerScript = `${projectRoot}test/support/mcp-server.ts`;

export function testServerConfig(
  name: string,
  options: { mode?: TestServerMode; env?: Record<string, string>; moderatorOnly?: boolean } = {},
): StdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: ['--import', tsxLoader, testServerScript, options.mode ?? 'serve'],
    env: options.env ?? {},
    moderatorOnly: options.moderatorOnly ?? false,
  };
}

/** MCP timings for tests: 15 s to start (a loaded machine), no restart within a test's time. */
export const testTimings: McpTimings = {
  startTimeoutMs: 15_000,
  pingTimeoutMs: 1_000,
  firstBackoffMs: 60_000,
  maxBackoffMs: 60_000,
  stableAfterMs: 60_000,
};
