/**
 * How real model servers bend the protocol, each as documented or as its issue threads show it, in
 * their wire format (the sources are beside each quirk). A quirk renders what the model means to
 * do, refuses what the server refuses, and may hide part of the request from the model (a
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
  /** The prompt tokens the server says it read (10 unless given). */
  promptTokens?(request: SeenRequest): number;
}

/** Whether the request uses the API's tools (not the text protocol). */
const native = (request: SeenRequest) => Array.isArray(request.tools) && request.tools.length > 0;

const hermes = (calls: IntendedCall[]) =>
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
function callsAsText(write: (calls: IntendedCall[]) => string): Quirk['render'] {
  return (intent, request, _state, next) => {
    if (!('calls' in intent) || !native(request)) return render(intent, request, next);
    return { message: { role: 'assistant', content: write(intent.calls) }, finishReason: 'stop' };
  };
}

const withoutToolChoice = (request: SeenRequest): SeenRequest => {
  const { tool_choice: _, ...rest } = request;
  return rest;
};

/** OpenAI's own behaviour: the baseline. */
export const compliant: Quirk = {
  name: 'compliant',
  source: 'https://platform.openai.com/docs/api-reference/chat/create',
  render: (intent, request, _state, next) => render(intent, request, next),
};

/**
 * Ollama: /v1 has no tool_choice field, so "required" and named choices are dropped and the model
 * answers as it likes (ollama/ollama#8421, #11171; docs/api/openai-compatibility.mdx). Call ids as
 * it makes them (`call_ejieksiz`, ollama/ollama#5915), with `index`.
 */
export const ollamaIgnoresToolChoice: Quirk = {
  name: 'ollama: tool_choice ignored',
  source: 'https://github.com/ollama/ollama/issues/8421',
  asSeenByModel: withoutToolChoice,
  render: (intent, request, _state, next) => {
    const rendered = render(intent, request, next, { id: (n) => `call_${n.toString(36).padStart(8, 'q')}` });
    const calls = rendered.message.tool_calls as Record<string, unknown>[] | undefined;
    calls?.forEach((toolCall, index) => (toolCall.index = index));
    return rendered;
  },
};

/**
 * llama.cpp: `tool_choice` is read as a string only; the named object falls back to "auto" with a
 * warning in the server log and HTTP 200 (ggml-org/llama.cpp#26535). Parallel calls are off unless
 * asked for (docs/function-calling.md).
 */
export const llamacppNamedChoiceAsAuto: Quirk = {
  name: 'llama.cpp: named tool_choice read as auto',
  source: 'https://github.com/ggml-org/llama.cpp/issues/26535',
  images: false,
  asSeenByModel: (request) => (typeof request.tool_choice === 'object' ? withoutToolChoice(request) : request),
  render: (intent, request, _state, next) =>
    render(intent, request, next, { parallel: request.parallel_tool_calls === true }),
};

/**
 * A call the server's parser missed, left in `content` as Hermes / Qwen `<tool_call>` text with
 * finish_reason "stop" (llama.cpp: ggml-org/llama.cpp#22786; LM Studio: "If LM Studio cannot parse
 * any correctly formatted tool calls, it will simply return the response to the standard
 * content field", lmstudio docs 1_developer/3_openai-compat/tools.md).
 */
export const hermesCallInContent: Quirk = {
  name: 'tool call as <tool_call> text',
  source: 'https://github.com/ggml-org/llama.cpp/issues/22786',
  render: callsAsText(hermes),
};

/** Llama 3.x's JSON form leaking into content: `{"name": …, "parameters": …}` (raullenchai/Rapid-MLX#700; vLLM llama3_json). */
export const bareJsonCallInContent: Quirk = {
  name: 'tool call as bare JSON',
  source: 'https://github.com/raullenchai/Rapid-MLX/issues/700',
  render: callsAsText((calls) =>
    calls.map((intended) => JSON.stringify({ name: intended.name, parameters: intended.args })).join('; '),
  ),
};

/** A call in a fenced json block (groq/groq-typescript#28 shows a fenced JSON call as the model's output). */
export const fencedJsonCallInContent: Quirk = {
  name: 'tool call in a fenced json block',
  source: 'https://github.com/groq/groq-typescript/issues/28',
  render: callsAsText(
    (calls) =>
      `Here is the call:\n\`\`\`json\n${JSON.stringify({ name: calls[0]!.name, arguments: calls[0]!.args }, null, 2)}\n\`\`\``,
  ),
};

/**
 * LM Studio with an engine that does not enforce "required": an empty reply, no tool calls,
 * finish_reason "stop" (lmstudio-ai/lmstudio-bug-tracker#1904). The model is not forced to call.
 */
export const emptyReplyWhenForced: Quirk = {
  name: 'lm studio: empty reply when a call is forced',
  source: 'https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1904',
  asSeenByModel: withoutToolChoice,
  render: (intent, request, _state, next) =>
    'calls' in intent || !native(request)
      ? render(intent, request, next)
      : { message: { role: 'assistant', content: '' }, finishReason: 'stop' },
};

const geminiRefusedKeywords = [
  'additionalProperties',
  '$schema',
  'strict',
  'const',
  'propertyNames',
  '$defs',
  'examples',
];

/** Gemini's errors come as a list: `[{"error": {…}}]` (discuss.ai.google.dev thread on thought signatures). */
const geminiError = (message: string) => ({
  status: 400,
  body: [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }],
});

function keywordsIn(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) value.forEach((item) => keywordsIn(item, found));
  else if (typeof value === 'object' && value !== null)
    for (const [key, inner] of Object.entries(value)) {
      if (geminiRefusedKeywords.includes(key)) found.add(key);
      // Names under `properties` are the author's, not keywords.
      if (key === 'properties' && typeof inner === 'object' && inner !== null)
        Object.values(inner).forEach((child) => keywordsIn(child, found));
      else keywordsIn(inner, found);
    }
}

/**
 * Gemini's OpenAI endpoint: schema keywords outside its subset are refused (`Unknown name
 * "additionalProperties" at 'tools[0].function.parameters': Cannot find field.`:
 * openswarm-ai/openswarm#24, zed-industries/zed#44875, the `strict` field: router-for-me/CLIProxyAPI#102),
 * and each call's thought signature (`extra_content.google.thought_signature`) must come back with
 * it, or: "Function call is missing a thought_signature in functionCall parts." (ai.google.dev/
 * gemini-api/docs/thought-signatures; the wire form from discuss.ai.google.dev/t/…/109823).
 */
export const gemini: Quirk = {
  name: 'gemini: schema subset and thought signatures',
  source: 'https://ai.google.dev/gemini-api/docs/thought-signatures',
  refuse(request, state) {
    const problems: string[] = [];
    (request.tools ?? []).forEach((tool, index) => {
      const found = new Set<string>();
      keywordsIn((tool.function as { parameters?: unknown }).parameters, found);
      for (const keyword of found)
        problems.push(
          `Invalid JSON payload received. Unknown name "${keyword}" at 'tools[${index}].function.parameters': Cannot find field.`,
        );
      if ('strict' in tool.function)
        problems.push(
          `Invalid JSON payload received. Unknown name "strict" at 'tools[${index}].function': Cannot find field.`,
        );
    });
    if (problems.length > 0) return geminiError(problems.join('\n'));
    const issued = (state.get('signatures') as Map<string, string> | undefined) ?? new Map<string, string>();
    for (const message of request.messages) {
      const first = (
        message.tool_calls as { id: string; extra_content?: { google?: { thought_signature?: string } } }[] | undefined
      )?.[0];
      const expected = first && issued.get(first.id);
      if (expected && first.extra_content?.google?.thought_signature !== expected)
        return geminiError(
          'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
        );
    }
    return null;
  },
  render(intent, request, state, next) {
    const rendered = render(intent, request, next);
    const calls = rendered.message.tool_calls as { id: string; extra_content?: unknown }[] | undefined;
    if (calls?.[0]) {
      const signatures = (state.get('signatures') as Map<string, string> | undefined) ?? new Map<string, string>();
      const signature = `sig-${calls[0].id}`;
      signatures.set(calls[0].id, signature);
      state.set('signatures', signatures);
      // Only the first call of a step carries one (continuedev/continue#8865).
      calls[0].extra_content = { google: { thought_signature: signature } };
    }
    return rendered;
  },
};

/**
 * Mistral: tool-call ids must be nine letters or digits, in history sent back too; otherwise 400
 * `Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9.` (langchain-ai/langchain#24668).
 */
export const mistral: Quirk = {
  name: 'mistral: nine-character tool-call ids',
  source: 'https://github.com/langchain-ai/langchain/pull/24668',
  refuse(request) {
    const ids = request.messages.flatMap((message) => [
      ...((message.tool_calls as { id: string }[] | undefined) ?? []).map((toolCall) => toolCall.id),
      ...(message.tool_call_id === undefined ? [] : [message.tool_call_id]),
    ]);
    const bad = ids.find((id) => !/^[A-Za-z0-9]{9}$/.test(id));
    if (bad === undefined) return null;
    return {
      status: 400,
      body: {
        object: 'error',
        message: `Tool call id was ${bad} but must be a-z, A-Z, 0-9, with a length of 9.`,
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    };
  },
  render: (intent, request, _state, next) =>
    render(intent, request, next, { id: (n) => `mst${String(n).padStart(6, '0')}` }),
};

/**
 * Groq: a call the model wrote that cannot be parsed is a 400 `tool_use_failed` carrying the
 * model's text in `failed_generation` (huggingface/smolagents#1119).
 */
export const groq: Quirk = {
  name: 'groq: tool_use_failed',
  source: 'https://github.com/huggingface/smolagents/issues/1119',
  render(intent, request, _state, next) {
    if (!('broken' in intent)) return render(intent, request, next);
    return {
      status: 400,
      body: {
        error: {
          message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
          type: 'invalid_request_error',
          code: 'tool_use_failed',
          failed_generation: intent.broken,
        },
      },
    };
  },
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

/**
 * Ollama at its default context (4096 tokens in docs/faq.mdx; 2048 in older versions): a longer
 * prompt is cut from the start, HTTP 200, and `prompt_eval_count` / `usage.prompt_tokens` is all it
 * says (ollama/ollama#3839: a 160k prompt read as 16,387 tokens, "what gets discarded is the front").
 */
export const ollamaCutsLongPrompts: Quirk = {
  ...ollamaIgnoresToolChoice,
  name: 'ollama: long prompts cut at 2048 tokens',
  source: 'https://github.com/ollama/ollama/issues/3839',
  promptTokens: (request) => Math.min(2048, Math.round(JSON.stringify(request.messages).length / 4)),
};
