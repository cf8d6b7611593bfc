import { capabilities, portOf, type ProviderProfile } from './profile.ts';

/**
 * vLLM: named and "required" tool choices work on a plain `vllm serve` (structured outputs); only
 * "auto" needs --enable-auto-tool-choice and --tool-call-parser, and the bot never sends "auto".
 */
export const vllm: ProviderProfile<'vllm'> = {
  id: 'vllm',
  name: 'vLLM',
  matches: (url) => portOf(url) === '8000',
  honours: capabilities({
    requiredChoice: 'yes',
    namedChoice: 'yes',
    parallelCalls: 'yes',
    streamingToolCalls: 'yes',
  }),
  fixes: {},
  advice: [
    'no flag is needed for "required" and named tool choice; --reasoning-parser <model family> keeps thinking out of the content',
  ],
  sources: [
    'https://docs.vllm.ai/en/latest/features/tool_calling.html (named and required use structured outputs; auto needs the flags)',
    'https://docs.vllm.ai/en/latest/features/reasoning_outputs.html (the reasoning field)',
  ],
};
