import type { ToolDefinition } from './define-tool.ts';
import { calculator } from './calculator.ts';
import { currentTime } from './current-time.ts';

/** Every built-in tool, in the order the model and `/help` list them. */
export const builtInTools: readonly ToolDefinition[] = [calculator, currentTime];
