import { z } from 'zod';
import { fromZodTool } from './runtime-tool.ts';

export const finalAnswerToolName = 'final_answer';

/** The structured answer that ends a run. */
const finalAnswerSchema = z.object({
  answer: z
    .string()
    .trim()
    .min(1, 'the answer must not be empty')
    .describe('The answer for the user, in Discord Markdown (no tables).'),
  tools_used: z.array(z.string()).describe('Names of the tools whose results this answer relies on; [] when none.'),
  sources: sourcesField().describe(
    'The URLs this answer relies on, exactly as a web_search result or fetch_url page of this conversation gave them; null when none. Only URLs a tool returned are listed.',
  ),
});

/** `sources`: nullable, as strict schemas want every field present. */
function sourcesField() {
  return z.array(z.string().max(2048)).max(20).nullable();
}

/**
 * What is accepted: `sources` may also be left out, by a server that does not send strict schemas
 * or a model that skips a field it has no use for.
 */
export const acceptedFinalAnswer = finalAnswerSchema.extend({ sources: sourcesField().optional() });

/**
 * The answer that ends a run. `sources`, once the loop has checked them, holds only URLs the run's
 * tools showed; an answer stored before sources existed has none.
 */
export type FinalAnswer = Omit<z.output<typeof finalAnswerSchema>, 'sources'> & { sources?: string[] | null };

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
