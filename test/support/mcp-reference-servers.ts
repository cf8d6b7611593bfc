/**
 * The reference MCP servers the MCP project publishes, pinned in package.json's devDependencies and
 * started from node_modules (never downloaded at test time), as MCP_CONFIG would hold them: over stdio, and
 * server-everything over streamable HTTP too.
 */
import { spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
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

/**
 * `@modelcontextprotocol/server-everything` over streamable HTTP (stateful sessions), started on a
 * free port (it takes one from `PORT` and listens on every interface; the bot is pointed at
 * 127.0.0.1). Resolves once it listens.
 */
export async function startEverythingOverHttp(): Promise<{ url: string; close: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'],
    { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let said = '';
  await new Promise<void>((listening, failed) => {
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('listening on port')) listening();
    });
    child.once('exit', (code) => failed(new Error(`server-everything exited (${code}): ${said}`)));
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      child.kill();
      await exited;
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((found, failed) => {
    const probe = createServer();
    probe.once('error', failed);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => found(port));
    });
  });
}
