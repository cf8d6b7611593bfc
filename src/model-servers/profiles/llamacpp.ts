import { capabilities, portOf, type ProviderProfile } from './profile.ts';

/**
 * llama.cpp's server: tools need the Jinja template (`--jinja`; without it a request with tools
 * fails: "tools param requires --jinja flag"). `tool_choice` is read as a string only; the named
 * object falls back to "auto" with a warning in the server's log and HTTP 200, so a named choice is
 * sent as "required" with that one tool, which its grammar enforces.
 */
export const llamacpp: ProviderProfile<'llamacpp'> = {
  id: 'llamacpp',
  name: 'llama.cpp server',
  matches: (url) => portOf(url) === '8080' || portOf(url) === '9931',
  honours: capabilities({
    // "required" is left unknown: enforced by grammar for the formats it recognises
    // (docs/function-calling.md), but a template it does not recognise falls back to a generic
    // format, where a reply without a call was reported: learned when seen rather than assumed.
    namedChoice: 'no',
    parallelCalls: 'no',
    streamingToolCalls: 'yes',
  }),
  fixes: { namedChoice: 'required-with-one-tool' },
  advice: [
    'start llama-server with --jinja (older builds; newer ones default to it) and a tool-aware chat template',
    "give it a context for the bot's requests: -c 16384 (the default takes the model's own, which may be 2,048 tokens, less than the bot's smallest request)",
    '--reasoning-format deepseek keeps thinking out of the content',
  ],
  sources: [
    'https://github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md (--jinja, formats, parallel_tool_calls off by default)',
    'https://github.com/ggml-org/llama.cpp/issues/26535 (named tool_choice silently becomes "auto")',
    'https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md (--reasoning-format)',
  ],
};
