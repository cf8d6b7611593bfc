/**
 * Reasoning models put their thinking in the reply: in a field of its own, or in `<think>` tags
 * inside `content`. Either way it is taken out of what may be posted and kept apart.
 *
 * Sources: llama.cpp `--reasoning-format` (`none` leaves thoughts in `content`, `deepseek` puts them
 * in `reasoning_content`, `deepseek-legacy` does both; tools/server/README.md); vLLM's field is now
 * `reasoning`, formerly `reasoning_content` (docs/features/reasoning_outputs.md); Ollama's /v1 uses
 * `reasoning` (ollama/ollama openai/openai.go), older versions left `<think>` in content
 * (ollama/ollama#8529); DeepSeek `reasoning_content` (api-docs.deepseek.com/guides/reasoning_model);
 * OpenRouter `reasoning` (openrouter.ai/docs/use-cases/reasoning-tokens); Groq `reasoning_format: raw`
 * leaves `<think>` in content (console.groq.com/docs/reasoning).
 */

/** Field names servers put reasoning in, in the order they are read. */
export const reasoningFields = ['reasoning_content', 'reasoning'] as const;

const thinkBlock = /<(think|thinking)>([\s\S]*?)<\/\1>/gi;

/**
 * The content with its thinking taken out, and the thinking. Handles whole `<think>…</think>`
 * blocks anywhere, a reply that starts thinking and never closes the tag (cut off), and a reply
 * whose opening tag was in the prompt (templates that start the turn with `<think>`, as
 * DeepSeek-R1's does: only `</think>` appears).
 */
export function splitThinking(content: string): { content: string; thinking: string | null } {
  // Most replies hold no tag at all (a call's reply, no content): nothing to look for.
  if (!content.includes('<')) return { content: content.trim(), thinking: null };
  const thoughts: string[] = [];
  let rest = content.replace(thinkBlock, (_, _tag: string, inner: string) => {
    thoughts.push(inner.trim());
    return '';
  });
  const closing = /<\/(think|thinking)>/i.exec(rest);
  if (closing && !/<(think|thinking)>/i.test(rest.slice(0, closing.index))) {
    thoughts.unshift(rest.slice(0, closing.index).trim());
    rest = rest.slice(closing.index + closing[0].length);
  }
  const opening = /<(think|thinking)>/i.exec(rest);
  if (opening) {
    thoughts.push(rest.slice(opening.index + opening[0].length).trim());
    rest = rest.slice(0, opening.index);
  }
  const thinking = thoughts.filter((thought) => thought !== '').join('\n\n');
  return { content: rest.trim(), thinking: thinking === '' ? null : thinking };
}

/** The reasoning a reply's message carries in a field of its own, if any. */
export function reasoningField(message: Record<string, unknown>): string | null {
  for (const field of reasoningFields) {
    const value = message[field];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return null;
}
