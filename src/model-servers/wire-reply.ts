/**
 * Reading a chat-completions reply into the agent's terms: the message reduced to content, tool
 * calls and reasoning, whatever the server's dialect. Thinking is taken out of the content; calls
 * written as text are made proper calls, and their text is not kept as content (never posted).
 */
import type { AssistantMessage, ToolCall } from '../agent/messages.ts';
import type { ModelResponse } from '../agent/model-client.ts';
import { ModelError } from '../agent/model-error.ts';
import { reasoningField, splitThinking } from './reasoning.ts';
import { findTextToolCalls, looksLikeToolCall, type TextToolCall } from './text-tool-calls.ts';
import { newCallId } from './tool-call-ids.ts';

export interface ReplyReading {
  /** The tools offered: a call written as text counts only if it names one. */
  toolNames: ReadonlySet<string>;
  /** Ids of nine letters or digits for calls read from text (Mistral's rule). */
  shortIds: boolean;
  /** The text protocol is in use: calls in ```json blocks are taken too (text-tool-calls.ts). */
  textProtocol: boolean;
}

/** A reply, and whether its calls were read from text (the server's own parser missed them, or it has none). */
export type ReadReply = ModelResponse & { fromText: boolean };

export function readReply(completion: unknown, reading: ReplyReading): ReadReply {
  const reply = (completion ?? {}) as {
    choices?: unknown;
    usage?: Record<string, unknown> | null;
    timings?: Record<string, unknown> | null;
    model?: unknown;
  };
  const choice = Array.isArray(reply.choices)
    ? (reply.choices[0] as { message?: Record<string, unknown>; finish_reason?: unknown } | undefined)
    : undefined;
  if (!choice?.message) throw new ModelError('invalid-response', { detail: 'the response has no choices[0].message' });
  const raw = choice.message;
  const rawCalls: unknown = raw.tool_calls ?? [];
  const rawContent: unknown = raw.content ?? null;
  if (!Array.isArray(rawCalls))
    throw new ModelError('invalid-response', { detail: 'choices[0].message.tool_calls is not a list' });
  if (rawContent !== null && typeof rawContent !== 'string')
    throw new ModelError('invalid-response', { detail: 'choices[0].message.content is not text' });
  const { content, thinking } = splitThinking(rawContent ?? '');
  const reasoning = [reasoningField(raw), thinking].filter((text): text is string => text !== null).join('\n\n');
  let toolCalls = uniqueIds(
    rawCalls.flatMap((raw) => normalizeToolCall(raw, reading.shortIds)),
    reading.shortIds,
  );
  let fromText = false;
  // Content without thinking is kept exactly as sent.
  let text: string | null = thinking === null ? rawContent : content;
  if (toolCalls.length === 0) {
    // Content first; a reply whose content is empty may have written its call in the reasoning
    // (ollama/ollama#15288: the whole answer in `reasoning`).
    const forms = { fenced: reading.textProtocol };
    const written = findTextToolCalls(content, reading.toolNames, forms);
    const found =
      written.length > 0 || content !== '' ? written : findTextToolCalls(reasoning, reading.toolNames, forms);
    if (found.length > 0) {
      toolCalls = callsFromText(found, reading.shortIds);
      fromText = true;
      text = null;
    }
  }
  // A call attempted in text that could not be taken: never to be taken for the answer and posted.
  const unreadable =
    toolCalls.length === 0 && looksLikeToolCall(content, { fenced: reading.textProtocol })
      ? `the tool call you wrote could not be read, or names no tool offered: write one <tool_call> block holding one JSON object with "name" (one of: ${[...reading.toolNames].join(', ')}) and "arguments"`
      : undefined;
  const message: AssistantMessage = { role: 'assistant', content: text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning !== '') message.reasoning = reasoning;
  const usage = reply.usage;
  return {
    message,
    usage: usage
      ? {
          promptTokens: tokenCount(usage.prompt_tokens),
          completionTokens: tokenCount(usage.completion_tokens),
          // A server that leaves the total out (or garbles it) still gets its calls charged to the budget.
          totalTokens:
            tokenCount(usage.total_tokens) || tokenCount(usage.prompt_tokens) + tokenCount(usage.completion_tokens),
          ...cachedTokens(usage, reply.timings),
        }
      : null,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    model: typeof reply.model === 'string' ? reply.model : '',
    fromText,
    ...(unreadable ? { rejectedCall: unreadable } : {}),
  };
}

/**
 * The prompt tokens the server took from its cache, where it says so (nothing where it does not):
 * - OpenAI: `usage.prompt_tokens_details.cached_tokens`
 *   (https://platform.openai.com/docs/guides/prompt-caching); vLLM the same, with
 *   `--enable-prompt-tokens-details` (https://docs.vllm.ai/en/latest/cli/serve.html); Ollama's
 *   OpenAI endpoint maps its `prompt_eval_cached_count` to it (ollama/ollama#8008, openai/openai.go).
 * - llama.cpp's llama-server: `timings.cache_n` beside the usage, the prompt tokens reused from the
 *   slot's cache, `timings.prompt_n` those processed anew (tools/server/README.md, "timings").
 */
function cachedTokens(
  usage: Record<string, unknown>,
  timings: Record<string, unknown> | null | undefined,
): { cachedPromptTokens?: number } {
  const details = usage.prompt_tokens_details as Record<string, unknown> | null | undefined;
  if (typeof details?.cached_tokens === 'number') return { cachedPromptTokens: tokenCount(details.cached_tokens) };
  if (typeof timings?.cache_n === 'number') return { cachedPromptTokens: tokenCount(timings.cache_n) };
  return {};
}

/** Calls read from text, as the loop takes calls. */
export function callsFromText(found: readonly TextToolCall[], shortIds: boolean): ToolCall[] {
  return found.map((call) => ({
    id: newCallId(shortIds),
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
}

/**
 * A count of tokens as the server reported it, or 0 if it is not one: a string, a negative or a
 * fraction would be summed into the run's usage and refused by the database, losing the run's end.
 */
function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
    ? Math.min(Math.round(value), Number.MAX_SAFE_INTEGER)
    : 0;
}

/** Half a surrogate pair: SQLite stores it as U+FFFD, so such an id would not match its result once stored. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Servers that are only OpenAI-compatible leave out a call's `type` or `id`, or send its arguments
 * as an object: each call still becomes one the loop can answer (an id that is missing, or not
 * well-formed Unicode, gets a new one). Other kinds of call are dropped. What the server attached
 * in `extra_content` (Gemini's thought signature) is kept, to be sent back where it is needed.
 */
function normalizeToolCall(raw: unknown, shortIds: boolean): ToolCall[] {
  const call = (raw ?? {}) as {
    id?: unknown;
    type?: unknown;
    function?: { name?: unknown; arguments?: unknown };
    extra_content?: unknown;
  };
  if (call.type !== undefined && call.type !== 'function') return [];
  const args = call.function?.arguments;
  const normalized: ToolCall = {
    id: typeof call.id === 'string' && call.id !== '' && !loneSurrogate.test(call.id) ? call.id : newCallId(shortIds),
    type: 'function',
    function: {
      name: typeof call.function?.name === 'string' ? call.function.name : '',
      arguments: typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
    },
  };
  if (typeof call.extra_content === 'object' && call.extra_content !== null && !Array.isArray(call.extra_content))
    normalized.extra_content = call.extra_content as Record<string, unknown>;
  return [normalized];
}

/**
 * Each call of a message gets an id of its own: a server that repeats one would otherwise have
 * two tool messages answer the same id, which the next request cannot carry (and the step log
 * could not tell apart). A repeated id is replaced, as a missing one is.
 */
function uniqueIds(calls: ToolCall[], shortIds: boolean): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    const unique = seen.has(call.id) ? { ...call, id: newCallId(shortIds) } : call;
    seen.add(unique.id);
    return unique;
  });
}
