import { finalAnswerToolName } from './final-answer.ts';
import { fromZodTool, type ToolDefinition } from './runtime-tool.ts';
import type { Requester, RuntimeTool, ToolServer } from './tool.ts';

/**
 * Builds the runtime form of every tool once, at start-up. Names must be unique, and
 * `final_answer` is the loop's own.
 */
export function buildToolRegistry(
  definitions: readonly ToolDefinition[],
  extra: readonly RuntimeTool[] = [],
): RuntimeTool[] {
  const tools = [...definitions.map(fromZodTool), ...extra];
  const seen = new Set<string>([finalAnswerToolName]);
  for (const tool of tools) {
    if (seen.has(tool.name))
      throw new Error(`two tools are named "${tool.name}" (or it clashes with ${finalAnswerToolName})`);
    seen.add(tool.name);
  }
  return tools;
}

/** The tools offered in a run asked for by these people: moderator-only ones need all of them to be moderators. */
export function toolsFor(tools: readonly RuntimeTool[], requesters: readonly Requester[]): RuntimeTool[] {
  const allModerators = requesters.length > 0 && requesters.every((requester) => requester.isModerator);
  return allModerators ? [...tools] : tools.filter((tool) => !tool.moderatorOnly);
}

/** OpenAI takes at most 128 functions a request; `final_answer` is one of them. */
export const maxOfferedTools = 127;

/**
 * The tools on offer now: the built-in ones, then each server's, as last listed; a name already
 * taken is skipped, and past `maxOfferedTools` the rest are left out (a server with hundreds of
 * tools must not make every model call fail).
 */
export function currentTools(builtIn: readonly RuntimeTool[], servers: readonly ToolServer[] = []): RuntimeTool[] {
  const seen = new Set<string>([finalAnswerToolName]);
  const tools: RuntimeTool[] = [];
  for (const tool of [...builtIn, ...servers.flatMap((server) => server.tools())]) {
    if (tools.length >= maxOfferedTools) break;
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    tools.push(tool);
  }
  return tools;
}
