import type { z } from 'zod';
import type { ToolDefinition } from '../src/agent/runtime-tool.ts';

export type { ToolDefinition } from '../src/agent/runtime-tool.ts';

/**
 * Types a tool's `execute` from its zod schema. Does nothing at run time: a tool is a plain object.
 */
export function defineTool<Parameters extends z.ZodObject>(
  definition: ToolDefinition<Parameters>,
): ToolDefinition<Parameters> {
  return definition;
}
