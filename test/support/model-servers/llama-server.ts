/**
 * llama.cpp's llama-server as it was tried for real (b8291, `--jinja`, the 260K-parameter
 * TinyStories model, 2026-11-28; issues 38 and 39), in the three configurations of the trial:
 * - `llamaServerDefaults`: `llama-server -m model.gguf --jinja`: the model's 2,048-token context, no
 *   chat template with a tool-call format;
 * - `llamaServerQwenTemplate`: `... --chat-template-file qwen2.5.jinja -c 8192 -n 512`: Qwen 2.5's
 *   template, a format llama.cpp recognises (docs/function-calling.md), so "required" is held by a
 *   grammar;
 * - `llamaServerNoTemplate`: `... -c 8192 -n 512` without it.
 * What the server does, in every one: a named `tool_choice` is read as "auto" (ggml-org/llama.cpp#26535);
 * several calls in a reply only when `parallel_tool_calls` asks (docs/function-calling.md); an image
 * without a projector is a 500 "image input is not supported" (ggml-org/llama.cpp#13566); a prompt
 * longer than the context is a 400 `exceed_context_size_error` (tools/server/server-context.cpp);
 * each reply says in `timings` how much of the prompt came from its cache (tools/server/README.md).
 * What the model does: called by a grammar, it calls as told (`followInstructions`); left free, it
 * writes a story until the length limit stops it (`finish_reason: "length"`), as the tiny model did.
 */
import { type SeenRequest } from './brain.ts';
import { native, type Quirk, render } from './quirk-rendering.ts';

export interface LlamaServerConfig {
  name: string;
  /** `-c`: the context, in tokens. */
  contextTokens: number;
  /** `-n`: a reply's most tokens when the request does not say (null: until the context is full). */
  replyTokens: number | null;
  /** A chat template whose tool-call format llama.cpp recognises: "required" is held by a grammar. */
  toolTemplate: boolean;
}

/** TinyStories' 512-token vocabulary cuts words short: about 2.5 characters a token (2,169 tokens for the bot's smallest request, issue 39). */
const charactersPerToken = 2.5;

/** The prompt as the fake counts it: the messages and the tools, as characters. */
const promptText = (request: SeenRequest) => JSON.stringify(request.messages) + JSON.stringify(request.tools ?? []);

const tokensOf = (text: string) => Math.ceil(text.length / charactersPerToken);

const story = 'Once upon a time, there was a little dog named Tim. Tim liked to play in the park with a red ball. ';

/** A reply's most tokens: the request's `max_tokens`, else `-n`, and never past the context. */
function replyLimit(config: LlamaServerConfig, request: SeenRequest): number {
  const asked = typeof request.max_tokens === 'number' ? request.max_tokens : (config.replyTokens ?? Infinity);
  return Math.max(1, Math.min(asked, config.contextTokens - tokensOf(promptText(request))));
}

function refusal(config: LlamaServerConfig, request: SeenRequest): { status: number; body: unknown } | null {
  const image = request.messages.some(
    (message) =>
      Array.isArray(message.content) &&
      (message.content as { type: string }[]).some((part) => part.type === 'image_url'),
  );
  if (image)
    return {
      status: 500,
      body: {
        error: {
          code: 500,
          message: 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj',
          type: 'server_error',
        },
      },
    };
  const tokens = tokensOf(promptText(request));
  if (tokens < config.contextTokens) return null;
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message: `request (${tokens} tokens) exceeds the available context size (${config.contextTokens} tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: tokens,
        n_ctx: config.contextTokens,
      },
    },
  };
}

/** llama-server's `timings`: the prompt's start it had from the last request (one slot), and what it read anew. */
function timings(request: SeenRequest, state: Map<string, unknown>): Record<string, unknown> {
  const text = promptText(request);
  const last = (state.get('slot') as string | undefined) ?? '';
  state.set('slot', text);
  let common = 0;
  while (common < text.length && common < last.length && text[common] === last[common]) common += 1;
  const total = tokensOf(text);
  // The last token is read again even when the whole prompt is cached, to sample from it.
  const cached = Math.min(Math.floor(common / charactersPerToken), total - 1);
  return { timings: { cache_n: cached, prompt_n: total - cached, predicted_n: 5 } };
}

export function llamaServer(config: LlamaServerConfig): Quirk {
  return {
    name: `llama-server: ${config.name}`,
    source: 'https://github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md',
    refuse: (request) => refusal(config, request),
    // A named choice becomes "auto"; without a tool template "required" holds nothing either.
    asSeenByModel: (request) => {
      const held = config.toolTemplate && request.tool_choice === 'required';
      if (held) return request;
      const { tool_choice: _, ...rest } = request;
      return rest;
    },
    render(intent, request, _state, next) {
      if (config.toolTemplate && request.tool_choice === 'required' && native(request))
        return render(intent, request, next, { parallel: request.parallel_tool_calls === true });
      const length = Math.floor(replyLimit(config, request) * charactersPerToken);
      return {
        message: { role: 'assistant', content: story.repeat(Math.ceil(length / story.length)).slice(0, length) },
        finishReason: 'length',
      };
    },
    promptTokens: (request) => tokensOf(promptText(request)),
    completionFields: timings,
  };
}

export const llamaServerDefaults = llamaServer({
  name: 'defaults (2,048-token context, no tool template)',
  contextTokens: 2048,
  replyTokens: null,
  toolTemplate: false,
});

export const llamaServerQwenTemplate = llamaServer({
  name: "Qwen 2.5's template, -c 8192 -n 512",
  contextTokens: 8192,
  replyTokens: 512,
  toolTemplate: true,
});

export const llamaServerNoTemplate = llamaServer({
  name: 'no tool template, -c 8192 -n 512',
  contextTokens: 8192,
  replyTokens: 512,
  toolTemplate: false,
});
