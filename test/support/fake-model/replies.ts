/**
 * The replies tests script for the scripted mode (scripted-mode.ts), in OpenAI's wire format: a
 * completion that calls tools, one that calls `final_answer`, plain text, an API error.
 */
import { chatCompletion } from './server.ts';

/** What the scripted mode sends back for one request. */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value, or a string sent as it is (to send something that is not JSON). */
  body?: unknown;
  /** Waits this long before answering. */
  delayMs?: number;
  /** Never answers (until the client gives up or the server closes). */
  hang?: boolean;
  /** Destroys the connection without an answer. */
  reset?: boolean;
  /**
   * Sends the status, the headers and only this many bytes of the body, then destroys the
   * connection: a reset in the middle of the response.
   */
  resetAfterBytes?: number;
  /** Sends the status, the headers and only this many bytes of the body, then nothing more. */
  hangAfterBytes?: number;
  /** Sends the status, the headers and then the body as this yields it (a slow, endless or broken stream). */
  bodyPieces?: () => AsyncIterable<string>;
}

/** A tool call as a completion's message carries it. */
export interface ScriptedToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

let callCounter = 0;

/** A completion whose message calls these tools (arguments given as objects, or raw text). */
export function toolCalls(...calls: { name: string; arguments: unknown; id?: string }[]): ScriptedReply {
  return completion(
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.id ?? `call_${++callCounter}`,
        type: 'function',
        function: {
          name: call.name,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        },
      })),
    },
    'tool_calls',
  );
}

/** A completion that calls `final_answer`. */
export function finalAnswer(answer: string, toolsUsed: string[] = []): ScriptedReply {
  return toolCalls({ name: 'final_answer', arguments: { answer, tools_used: toolsUsed } });
}

/** A completion with plain text and no tool call. */
export function text(content: string): ScriptedReply {
  return completion({ role: 'assistant', content }, 'stop');
}

/** An API error in OpenAI's shape. */
export function apiError(
  status: number,
  message: string,
  options: { code?: string; headers?: Record<string, string> } = {},
): ScriptedReply {
  return {
    status,
    headers: options.headers,
    body: {
      error: {
        message,
        type: status === 429 ? 'rate_limit_error' : 'invalid_request_error',
        code: options.code ?? null,
      },
    },
  };
}

/**
 * The reply as a server that took `cached` of its 100 prompt tokens from its cache says so: OpenAI,
 * vLLM and Ollama in `usage.prompt_tokens_details.cached_tokens`, llama.cpp's llama-server in
 * `timings` (`cache_n` reused, `prompt_n` processed anew).
 */
export function reportingCache(reply: ScriptedReply, cached: number, as: 'openai' | 'llama.cpp'): ScriptedReply {
  const body = reply.body as { usage: Record<string, unknown> };
  return {
    ...reply,
    body:
      as === 'openai'
        ? { ...body, usage: { ...body.usage, prompt_tokens_details: { cached_tokens: cached } } }
        : { ...body, timings: { cache_n: cached, prompt_n: 100 - cached, prompt_ms: 1, predicted_n: 20 } },
  };
}

function completion(message: Record<string, unknown>, finishReason: string): ScriptedReply {
  return {
    body: chatCompletion({
      id: `chatcmpl-${++callCounter}`,
      created: Math.floor(Date.now() / 1000),
      model: 'scripted-model',
      message: { refusal: null, ...message },
      finishReason,
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    }),
  };
}
