/**
 * The common part of the quirks (quirks.ts lists them all): how OpenAI renders a model's intent, and
 * the quirks any kind of server may show (thinking in the reply). A quirk renders what the model
 * means to do, refuses what the server refuses, and may hide part of the request from the model (a
 * `tool_choice` the server drops).
 */
import { type Intent, type IntendedCall, type SeenRequest } from './brain.ts';

export type Rendered =
  | { message: Record<string, unknown>; finishReason: string }
  /** The server answers with an error instead. */
  | { status: number; body: unknown };

export interface Quirk {
  name: string;
  source: string;
  /** False: a request with an image part is refused. */
  images?: boolean;
  refuse?(request: SeenRequest, state: Map<string, unknown>): { status: number; body: unknown } | null;
  /** The request as the model sees it, when the server drops part of it. */
  asSeenByModel?(request: SeenRequest): SeenRequest;
  render(intent: Intent, request: SeenRequest, state: Map<string, unknown>, next: () => number): Rendered;
  /** Streams each tool call whole, in one chunk (Ollama), not its arguments piece by piece. */
  streamsCallsWhole?: boolean;
  /** The prompt tokens the server says it read (10 unless given). */
  promptTokens?(request: SeenRequest): number;
  /** Fields of its own a server adds to a whole reply (llama.cpp's `timings`), after the reply is rendered. */
  completionFields?(request: SeenRequest, state: Map<string, unknown>): Record<string, unknown>;
}

/** Whether the request uses the API's tools (not the text protocol). */
export const native = (request: SeenRequest) => Array.isArray(request.tools) && request.tools.length > 0;

export const hermes = (calls: IntendedCall[]) =>
  calls
    .map(
      (intended) => `<tool_call>\n${JSON.stringify({ name: intended.name, arguments: intended.args })}\n</tool_call>`,
    )
    .join('\n');

/**
 * As OpenAI renders it: calls as `tool_calls` (only the first, where parallel calls are off), text
 * as content. A text-protocol request (no tools) gets its calls written as the prompt asked.
 */
export function render(
  intent: Intent,
  request: SeenRequest,
  next: () => number,
  options: { parallel?: boolean; id?: (n: number) => string } = {},
): Extract<Rendered, { message: unknown }> {
  if ('say' in intent) return { message: { role: 'assistant', content: intent.say }, finishReason: 'stop' };
  if ('empty' in intent) return { message: { role: 'assistant', content: '' }, finishReason: 'stop' };
  if ('broken' in intent) return { message: { role: 'assistant', content: intent.broken }, finishReason: 'stop' };
  if (!native(request)) return { message: { role: 'assistant', content: hermes(intent.calls) }, finishReason: 'stop' };
  const calls = options.parallel === false ? intent.calls.slice(0, 1) : intent.calls;
  const id = options.id ?? ((n: number) => `call_${n}`);
  return {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((intended) => ({
        id: id(next()),
        type: 'function',
        function: { name: intended.name, arguments: JSON.stringify(intended.args) },
      })),
    },
    finishReason: 'tool_calls',
  };
}

/** Calls in a native request written as text in `content` instead, with finish_reason "stop". */
export function callsAsText(write: (calls: IntendedCall[]) => string): Quirk['render'] {
  return (intent, request, _state, next) => {
    if (!('calls' in intent) || !native(request)) return render(intent, request, next);
    return { message: { role: 'assistant', content: write(intent.calls) }, finishReason: 'stop' };
  };
}

export const withoutToolChoice = (request: SeenRequest): SeenRequest => {
  const { tool_choice: _, ...rest } = request;
  return rest;
};

/** OpenAI's own behaviour: the baseline. */
export const compliant: Quirk = {
  name: 'compliant',
  source: 'https://platform.openai.com/docs/api-reference/chat/create',
  render: (intent, request, _state, next) => render(intent, request, next),
};

/** Thinking left in the content as `<think>…</think>` (llama.cpp `--reasoning-format none`; Groq `reasoning_format: raw`). */
export const thinkInContent: Quirk = {
  name: '<think> in content',
  source: 'https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md',
  render(intent, request, _state, next) {
    const rendered = render(intent, request, next);
    const content = (rendered.message.content as string | null) ?? '';
    rendered.message.content = `<think>\nThe user wants an answer. I must not say this to them.\n</think>\n\n${content}`;
    return rendered;
  },
};

/**
 * Thinking in a field of its own: `reasoning_content` (DeepSeek; llama.cpp `--reasoning-format
 * deepseek`) or `reasoning` (vLLM, Ollama). DeepSeek's thinking mode also refuses history whose
 * tool-call turns lack it: "Missing `reasoning_content` field in the assistant message at message
 * index N." (api-docs.deepseek.com/guides/thinking_mode#tool-calls; continuedev/continue#10193).
 */
export function reasoningField(
  field: 'reasoning_content' | 'reasoning',
  options: { requiredBack?: boolean } = {},
): Quirk {
  return {
    name: `${field} field${options.requiredBack ? ', needed back' : ''}`,
    source: 'https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
    refuse(request) {
      if (!options.requiredBack) return null;
      const index = request.messages.findIndex(
        (message) => message.role === 'assistant' && message.tool_calls?.length && !(field in message),
      );
      if (index === -1) return null;
      return {
        status: 400,
        body: {
          error: {
            message: `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_request_error',
          },
        },
      };
    },
    render(intent, request, _state, next) {
      const rendered = render(intent, request, next);
      rendered.message[field] = 'Thinking it over: the user wants an answer. Not for their eyes.';
      return rendered;
    },
  };
}
