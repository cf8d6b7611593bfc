/**
 * The settings that name files (`SYSTEM_PROMPT_FILE`, `MCP_CONFIG`, `MODELS_FILE`, and
 * `DATABASE_PATH`'s folder), read and checked together: every problem in them is reported at start
 * with those of the other settings, so that an operator fixes them in one go.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { databaseFolderProblem } from '../../db/database-folder.ts';
import { type McpServerConfig, parseMcpConfig } from '../mcp/mcp-config.ts';
import type { ModelsConfig } from '../model-catalog/model-entry.ts';
import { parseModelsFile, type SharedModelOptions } from '../model-catalog/models-file.ts';
import { blankToUndefined, type Environment } from './setting-fields.ts';

/** Larger than any prompt, server list or model list an operator writes by hand. */
const maxSettingFileBytes = 1024 * 1024;

/**
 * The text of a file a setting names. Only a regular file, of at most 1 MiB: a pipe would block
 * the start for ever (opened without blocking here, so that even opening it cannot), and a device
 * such as /dev/zero has no end.
 */
export function readSettingFile(path: string): string {
  // O_NONBLOCK: opening a pipe no one writes to returns at once (open(2)); it changes nothing for a regular file.
  const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(descriptor);
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > maxSettingFileBytes) throw new Error('larger than 1 MiB');
    return readFileSync(descriptor, 'utf8');
  } finally {
    closeSync(descriptor);
  }
}

type FileSetting = 'SYSTEM_PROMPT_FILE' | 'MCP_CONFIG' | 'MODELS_FILE';

export function readSettingFiles(
  merged: Environment,
  shared: SharedModelOptions,
  readText: (path: string) => string,
  /** The one model to check in MODELS_FILE (the doctor's), by name; null: the default. */
  onlyModel?: { name: string | null },
): {
  systemPrompt: string | null;
  mcpServers: McpServerConfig[];
  models: ModelsConfig | null;
  secrets: string[];
  problems: string[];
} {
  const problems: string[] = [];
  const secrets: string[] = [];
  const read = (name: FileSetting): { path: string; text: string } | null => {
    const path = blankToUndefined(merged[name]) as string | undefined;
    if (path === undefined) return null;
    try {
      return { path, text: readText(path) };
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      problems.push(`${name} cannot be read (${reason}): "${path}"`);
      return null;
    }
  };
  const systemPrompt = read('SYSTEM_PROMPT_FILE')?.text.trim() || null;
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
    const parsed = parseModelsFile(file.text, merged, shared, onlyModel);
    if (parsed.ok) {
      models = { models: parsed.models, defaultName: parsed.defaultName };
      secrets.push(...parsed.secrets);
    } else problems.push(...parsed.problems.map((problem) => `MODELS_FILE "${file.path}": ${problem}`));
  }
  const databasePath = blankToUndefined(merged.DATABASE_PATH) as string | undefined;
  const folderProblem = databasePath === undefined ? null : databaseFolderProblem(databasePath);
  if (folderProblem) problems.push(`${folderProblem} (it is "${databasePath}")`);
  return { systemPrompt, mcpServers, models, secrets, problems };
}
