/**
 * The doctor's check of the MCP servers in MCP_CONFIG: each started as the bot starts it (stdio or
 * HTTP, at most its start timeout, all at once), its tools listed, then stopped. Says, for each,
 * how many tools it offers and which wait for the asker's Confirm, which it left out and why, or why
 * it is down (with the end of its stderr). A file the bot would refuse is reported as the bot words
 * it, and only then does the doctor exit 1: a server that is down does not stop the bot.
 */
import type { Logger } from '../agent/logger.ts';
import { silentLogger } from '../agent/logger.ts';
import type { Environment } from '../settings/setting-fields.ts';
import { blankToUndefined } from '../settings/setting-fields.ts';
import { readSettingFile } from '../settings/setting-files.ts';
import { parseMcpConfig } from '../mcp/mcp-config.ts';
import { loadMcpServers, mcpScopeRoot } from '../mcp/mcp-servers.ts';
import type { ToolServer } from '../agent/tool.ts';

/** Null when MCP_CONFIG is not set; otherwise the report's lines, and whether the file lets the bot start. */
export async function checkMcpServers(
  environment: Environment,
  databasePath: string,
  readText: (path: string) => string = readSettingFile,
): Promise<{ text: string; startsBot: boolean } | null> {
  const path = blankToUndefined(environment.MCP_CONFIG) as string | undefined;
  if (path === undefined) return null;
  const title = `MCP servers (MCP_CONFIG "${path}"):`;
  let text: string;
  try {
    text = readText(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { text: `${title}\n  FAIL the file cannot be read (${reason}): the bot does not start`, startsBot: false };
  }
  const parsed = parseMcpConfig(text, environment);
  if (!parsed.ok)
    return {
      text: [
        `${title} the bot does not start with this file:`,
        ...parsed.problems.map((line) => `  FAIL ${line}`),
      ].join('\n'),
      startsBot: false,
    };
  if (parsed.servers.length === 0) return { text: `${title} none (every server is disabled)`, startsBot: true };
  // A set: a server listed again (it said its tools changed) logs what it leaves out again.
  const leftOut = new Map<string, Set<string>>();
  const logger: Logger = {
    ...silentLogger,
    warn: (fields, message) => {
      const { mcpServer, tool, reason } = fields as { mcpServer?: string; tool?: string; reason?: string };
      if (message === 'MCP tool left out' && mcpServer)
        leftOut.set(mcpServer, (leftOut.get(mcpServer) ?? new Set()).add(`${tool} (${reason})`));
    },
  };
  const servers = await loadMcpServers(parsed.servers, logger, mcpScopeRoot(databasePath));
  try {
    // Each read as its first attempt left it: one that failed is soon starting again.
    const lines = await Promise.all(
      servers.connections.map(async (server) => {
        await server.start();
        return serverLines(server, [...(leftOut.get(server.name) ?? [])]);
      }),
    );
    return { text: [title, ...lines.flat()].join('\n'), startsBot: true };
  } finally {
    await servers.close();
  }
}

function serverLines(server: ToolServer, leftOut: string[]): string[] {
  const status = server.status();
  if (status.state !== 'up') {
    const reason = status.state === 'down' ? status.reason.replace(/; restarting$/, '') : 'it did not finish starting';
    return [`  FAIL ${server.name}: ${reason} (the bot starts without it, and retries it)`];
  }
  const tools = server.tools();
  const confirmed = tools.filter((tool) => tool.needsConfirmation).length;
  const lines = [
    `  ok   ${server.name}: ${tools.length} tools${confirmed > 0 ? `, ${confirmed} of which wait for the asker's Confirm in Discord` : ''}`,
  ];
  if (leftOut.length > 0) lines.push(`       left out: ${leftOut.join('; ')}`);
  return lines;
}
