import { capabilities, portOf, type ProviderProfile } from './profile.ts';

/**
 * Ollama's /v1 has no `tool_choice` field: required and named choices are dropped silently, so a
 * reply may be plain text (the bot then switches to the text protocol and remembers it). It cannot
 * set the context size either, and cuts long prompts from the start (system prompt and tools first)
 * with only a warning in its own log.
 */
export const ollama: ProviderProfile<'ollama'> = {
  id: 'ollama',
  name: 'Ollama',
  matches: (url) => portOf(url) === '11434',
  honours: capabilities({
    requiredChoice: 'no',
    namedChoice: 'no',
    parallelCalls: 'yes',
    images: 'yes',
    streamingToolCalls: 'yes',
  }),
  fixes: {},
  cutsLongPrompts: true,
  advice: [
    'set the context size on the server: OLLAMA_CONTEXT_LENGTH=16384 ollama serve (or PARAMETER num_ctx in a Modelfile); the default 4096 cuts the prompt silently',
    'use a model with tool support (ollama show <model> lists "tools")',
  ],
  sources: [
    'https://github.com/ollama/ollama/blob/main/docs/api/openai-compatibility.mdx (tool_choice unsupported; context size needs a Modelfile)',
    'https://github.com/ollama/ollama/issues/8421 and #11171 (tool_choice silently ignored)',
    'https://github.com/ollama/ollama/issues/3839 (prompts cut from the front, HTTP 200)',
    'https://github.com/ollama/ollama/blob/main/docs/faq.mdx (OLLAMA_CONTEXT_LENGTH)',
  ],
};
