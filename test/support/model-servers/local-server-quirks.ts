/**
 * Quirks of the servers people run themselves (Ollama, llama.cpp, LM Studio, and the text forms their
 * parsers leave in `content`), each with its source.
 */
import { callsAsText, hermes, native, type Quirk, render, withoutToolChoice } from './quirk-rendering.ts';

/**
 * Ollama: /v1 has no tool_choice field, so "required" and named choices are dropped and the model
 * answers as it likes (ollama/ollama#8421, #11171; docs/api/openai-compatibility.mdx). Call ids as
 * it makes them (`call_ejieksiz`, ollama/ollama#5915), with `index`.
 */
export const ollamaIgnoresToolChoice: Quirk = {
  name: 'ollama: tool_choice ignored',
  streamsCallsWhole: true,
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
 * LM Studio with an engine that does not enforce "required": an empty reply, `"tool_calls": null`,
 * finish_reason "stop" (lmstudio-ai/lmstudio-bug-tracker#1904). The model is not forced to call.
 */
export const emptyReplyWhenForced: Quirk = {
  name: 'lm studio: empty reply when a call is forced',
  source: 'https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1904',
  asSeenByModel: withoutToolChoice,
  render: (intent, request, _state, next) =>
    'calls' in intent || !native(request)
      ? render(intent, request, next)
      : { message: { role: 'assistant', content: '', tool_calls: null }, finishReason: 'stop' },
};

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

/**
 * llama.cpp's older builds, asked to stream with tools: HTTP 500 "Cannot use tools with stream"
 * (a check in ggml-org/llama.cpp's tools/server/utils.hpp of that time, beside "tools param requires
 * --jinja flag"; see ggml-org/llama.cpp#10920).
 */
export const llamacppNoStreamWithTools: Quirk = {
  name: 'llama.cpp (old): no stream with tools',
  source: 'https://github.com/ggml-org/llama.cpp/issues/10920',
  refuse: (request) =>
    request.stream === true && native(request)
      ? { status: 500, body: { error: { code: 500, message: 'Cannot use tools with stream', type: 'server_error' } } }
      : null,
  render: (intent, request, _state, next) => render(intent, request, next),
};
