/**
 * A request refused because it does not fit the server's context: llama.cpp's llama-server answers
 * 400 `{"error": {"message": "request (2169 tokens) exceeds the available context size (2048
 * tokens), try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 2169,
 * "n_ctx": 2048}}` (tools/server/server-context.cpp; seen from b8291 at `-c 2048`, issue 39), and
 * Ollama, built on it, words it the same way.
 */
import type { ModelError } from '../agent/model-error.ts';

export interface ContextRefusal {
  /** The request's tokens, as the server counted them. */
  promptTokens: number;
  /** The server's context (per slot), in tokens. */
  contextTokens: number;
}

const wording = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/i;

/** The sizes a context-size refusal names, or null when `error` is not one. */
export function readContextRefusal(error: ModelError): ContextRefusal | null {
  if (error.status !== 400) return null;
  const said = wording.exec(error.reply?.message ?? error.message);
  if (said) return { promptTokens: Number(said[1]), contextTokens: Number(said[2]) };
  type Sizes = { n_prompt_tokens?: unknown; n_ctx?: unknown } | null | undefined;
  const whole = error.reply?.body as (Sizes & { error?: Sizes }) | null | undefined;
  const body = typeof whole?.error === 'object' ? whole.error : whole;
  if (typeof body?.n_prompt_tokens === 'number' && typeof body.n_ctx === 'number')
    return { promptTokens: body.n_prompt_tokens, contextTokens: body.n_ctx };
  return null;
}
