/** Which session of a scoped MCP server a tool call belongs to. */
import { createHash } from 'node:crypto';
import type { ConversationContext } from '../agent/tool.ts';
import type { McpScoping } from './mcp-config.ts';

/**
 * The scope key of a call, also the name of its session's directory: `server-<guild id>`, or
 * `conversation-<id>` for `scope: "conversation"` and for a conversation outside any Discord server
 * (a DM, the terminal), which then shares its session with nobody.
 */
export function scopeKey(
  scope: McpScoping['scope'],
  context: Pick<ConversationContext, 'guildId' | 'conversationId'>,
): string {
  if (scope === 'server' && context.guildId !== null) return `server-${safe(context.guildId)}`;
  return `conversation-${safe(context.conversationId)}`;
}

/** Snowflakes pass as they are; anything else (a terminal's key) is made a safe directory name. */
function safe(id: string): string {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(id)) return id;
  return createHash('sha256').update(id).digest('hex').slice(0, 16);
}
