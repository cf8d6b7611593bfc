/**
 * The reference MCP servers the MCP project publishes, pinned in package.json's devDependencies and
 * started over stdio from node_modules (never downloaded at test time), as MCP_CONFIG would hold them.
 */
import { fileURLToPath } from 'node:url';
import type { StdioServerConfig } from '../../src/mcp/mcp-config.ts';

const resolve = (specifier: string) => fileURLToPath(import.meta.resolve(specifier));

/** `@modelcontextprotocol/server-everything`: every feature of the protocol; stdio is its default transport. */
export function everythingServerConfig(name = 'everything'): StdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    env: {},
    moderatorOnly: false,
  };
}

/** `@modelcontextprotocol/server-filesystem`, allowed to read and write in `directories`. */
export function filesystemServerConfig(directories: string[], name = 'files'): StdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), ...directories],
    env: {},
    moderatorOnly: false,
  };
}

/** `@modelcontextprotocol/server-memory`: a knowledge graph kept in one file (`MEMORY_FILE_PATH`). */
export function memoryServerConfig(env: Record<string, string> = {}, name = 'memory'): StdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [resolve('@modelcontextprotocol/server-memory/dist/index.js')],
    env,
    moderatorOnly: false,
  };
}
