import { z } from 'zod';
import { fromZodTool } from './runtime-tool.ts';

export const finalAnswerToolName = 'final_answer';

/** The structured answer that ends a run. */
export const finalAnswerSchema = z.object({
  answer: z
    .string()
    .trim()
    .min(1, 'the answer must not be empty')
    .describe('The answer for the user, in Discord Markdown (no tables).'),
  tools_used: z.array(z.string()).describe('Names of the tools whose results this answer relies on; [] when none.'),
});

export type FinalAnswer = z.output<typeof finalAnswerSchema>;

/**
 * `final_answer` in the same runtime form as every other tool, so that its spec is built once.
 * The loop handles it itself: it is never executed.
 */
export const finalAnswerTool = fromZodTool({
  name: finalAnswerToolName,
  description:
    'Give your answer to the user and end your turn. Call it alone, once you have every tool result you need.',
  parameters: finalAnswerSchema,
  execute() {
    throw new Error('final_answer is handled by the agent loop, never executed');
  },
});

/** Keeps only the tools that were really called in the run, each once, in the model's order. */
export function correctToolsUsed(claimed: readonly string[], called: ReadonlySet<string>): string[] {
  return [...new Set(claimed)].filter((name) => called.has(name));
}
