/** How tests start the MCP server of `mcp-server.ts`: its config entry, as MCP_CONFIG would hold it. */
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
