import { capabilities, type ProviderProfile } from './profile.ts';

/**
 * Groq answers 400 `tool_use_failed` with the model's `failed_generation` when the model wrote a
 * call it could not parse: the call is read from that text when possible, and otherwise the
 * problem goes back to the model as an observation.
 */
export const groq: ProviderProfile<'groq'> = {
  id: 'groq',
  name: 'Groq',
  matches: (url) => url.hostname === 'api.groq.com',
  honours: capabilities({
    requiredChoice: 'yes',
    namedChoice: 'yes',
    parallelCalls: 'yes',
    streamingToolCalls: 'yes',
  }),
  fixes: {},
  advice: [],
  sources: [
    'https://github.com/huggingface/smolagents/issues/1119 (the tool_use_failed body with failed_generation)',
    'https://console.groq.com/docs/tool-use',
  ],
};
