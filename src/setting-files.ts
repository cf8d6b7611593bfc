/**
 * The settings that name files (`MCP_CONFIG`, `MODELS_FILE`), read and checked together: every
 * problem in them is reported at start with those of the other settings, so that an operator
 * fixes them in one go.
 */
import { type McpServerConfig, parseMcpConfig } from './mcp/mcp-config.ts';
import type { ModelsConfig } from './model-catalog/model-entry.ts';
import { parseModelsFile, type SharedModelOptions } from './model-catalog/models-file.ts';
import { blankToUndefined, type Environment } from './setting-fields.ts';

export function readSettingFiles(
  merged: Environment,
  shared: SharedModelOptions,
  readText: (path: string) => string,
): { mcpServers: McpServerConfig[]; models: ModelsConfig | null; secrets: string[]; problems: string[] } {
  const problems: string[] = [];
  const secrets: string[] = [];
  const read = (name: 'MCP_CONFIG' | 'MODELS_FILE'): { path: string; text: string } | null => {
    const path = blankToUndefined(merged[name]) as string | undefined;
    if (path === undefined) return null;
    try {
      return { path, text: readText(path) };
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? String(error);
      problems.push(`${name} cannot be read (${reason}): "${path}"`);
      return null;
    }
  };
  let mcpServers: McpServerConfig[] = [];
  const mcp = read('MCP_CONFIG');
  if (mcp) {
    const parsed = parseMcpConfig(mcp.text, merged);
    if (parsed.ok) {
      mcpServers = parsed.servers;
      secrets.push(...parsed.secrets);
    } else problems.push(...parsed.problems.map((problem) => `MCP_CONFIG "${mcp.path}": ${problem}`));
  }
  let models: ModelsConfig | null = null;
  const file = read('MODELS_FILE');
  if (file) {
    const parsed = parseModelsFile(file.text, merged, shared);
    if (parsed.ok) {
      models = { models: parsed.models, defaultName: parsed.defaultName };
      secrets.push(...parsed.secrets);
    } else problems.push(...parsed.problems.map((problem) => `MODELS_FILE "${file.path}": ${problem}`));
  }
  return { mcpServers, models, secrets, problems };
}
