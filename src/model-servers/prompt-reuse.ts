/**
 * What a server says it reused of a prompt it had read before (the longest common start of the
 * last prompt, kept in its cache), read from a whole chat completion. Each server says it its own
 * way:
 * - OpenAI: `usage.prompt_tokens_details.cached_tokens`, for prompts of 1,024 tokens and more
 *   (platform.openai.com/docs/guides/prompt-caching); vLLM the same, when started with
 *   `--enable-prompt-tokens-details` (docs.vllm.ai, the OpenAI-compatible server's options).
 * - llama.cpp's llama-server: `timings.cache_n` (tokens taken from the cache) and `timings.prompt_n`
 *   (tokens read anew) beside the usage (ggml-org/llama.cpp tools/server/README.md, the completion
 *   response's `timings`); newer builds give `cached_tokens` in the usage too.
 * Ollama's OpenAI-compatible endpoint says neither (docs/api/openai-compatibility.mdx).
 */

export interface PromptReuse {
  /** The prompt's tokens, as the server counted them. */
  promptTokens: number;
  /** Of those, the ones it took from its cache instead of reading them again. */
  cachedTokens: number;
  /** Where the server said it. */
  source: 'usage.prompt_tokens_details.cached_tokens' | 'timings.cache_n';
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);

/** What `completion` says of reuse, or null when the server says nothing of it. */
export function readPromptReuse(completion: unknown): PromptReuse | null {
  const reply = (typeof completion === 'object' && completion !== null ? completion : {}) as {
    usage?: { prompt_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null } | null;
    timings?: { cache_n?: unknown; prompt_n?: unknown } | null;
  };
  // llama.cpp's own figures first: they come with every reply, the usage's only with newer builds.
  const cacheN = count(reply.timings?.cache_n);
  const promptN = count(reply.timings?.prompt_n);
  if (cacheN !== null && promptN !== null)
    return { promptTokens: cacheN + promptN, cachedTokens: cacheN, source: 'timings.cache_n' };
  const cached = count(reply.usage?.prompt_tokens_details?.cached_tokens);
  const prompt = count(reply.usage?.prompt_tokens);
  if (cached !== null && prompt !== null)
    return { promptTokens: prompt, cachedTokens: cached, source: 'usage.prompt_tokens_details.cached_tokens' };
  return null;
}
