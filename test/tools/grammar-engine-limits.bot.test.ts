/**
 * Every tool schema the bot can send stays within the documented limits of the grammar engines of
 * llama.cpp (Ollama, LM Studio), and vLLM (xgrammar, llguidance): the built-in tools, final_answer,
 * and MCP tools after the bot's own rewriting, here the reference servers' (server-everything,
 * server-filesystem, server-memory) as their connections list them. The limits and their sources
 * are in test/support/grammar-engine-limits.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import { finalAnswerTool } from '../../src/agent/final-answer.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import type { RuntimeTool } from '../../src/agent/tool.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { builtInTools, databaseTools, webTools } from '../../tools/index.ts';
import { grammarEngineProblems, maxToolsJsonBytes } from '../support/grammar-engine-limits.ts';
import {
  everythingServerConfig,
  filesystemServerConfig,
  memoryServerConfig,
} from '../support/mcp-reference-servers.ts';
import { testTimings } from '../support/mcp-test-server.ts';
import { tempStore } from '../support/temp-store.ts';

const { store } = tempStore();
const connections: McpConnection[] = [];
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  store.close();
});

/** The tools a server gives the model, as the bot's connection makes them. */
async function mcpTools(config: McpServerConfig): Promise<readonly RuntimeTool[]> {
  const connection = new McpConnection(config, silentLogger, testTimings);
  connections.push(connection);
  await connection.start();
  expect(connection.status()).toEqual({ state: 'up' });
  return connection.tools();
}

/** Each tool's breaches, by name: `{}` when every tool keeps within the limits. */
const breaches = (tools: readonly RuntimeTool[]) =>
  Object.fromEntries(
    tools
      .map((tool) => [tool.name, grammarEngineProblems(tool.spec.function.parameters)] as const)
      .filter(([, problems]) => problems.length > 0),
  );

describe("tool schemas within the grammar engines' limits", () => {
  it('the built-in tools and final_answer', () => {
    const tools = [
      ...buildToolRegistry([
        ...builtInTools,
        ...databaseTools(store),
        ...webTools({ webSearch: { provider: 'searxng', endpoint: 'http://127.0.0.1:1/search', apiKey: null } }),
      ]),
      finalAnswerTool,
    ];
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['remind_me', 'fetch_url', 'web_search', 'search_server', 'final_answer']),
    );
    expect(breaches(tools)).toEqual({});
    expect(JSON.stringify(tools.map((tool) => tool.spec)).length).toBeLessThan(maxToolsJsonBytes);
  });

  it("the reference MCP servers' tools, as the bot rewrites them", async () => {
    const tools = [
      ...(await mcpTools(everythingServerConfig())),
      ...(await mcpTools(filesystemServerConfig([mkdtempSync(join(tmpdir(), 'mcp-files-'))]))),
      ...(await mcpTools(
        memoryServerConfig({ MEMORY_FILE_PATH: join(mkdtempSync(join(tmpdir(), 'mcp-memory-')), 'm.json') }),
      )),
    ];
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['everything__gzip-file-as-resource', 'files__search_files', 'memory__create_entities']),
    );
    expect(breaches(tools)).toEqual({});
    expect(JSON.stringify(tools.map((tool) => tool.spec)).length).toBeLessThan(maxToolsJsonBytes);
  });
});
