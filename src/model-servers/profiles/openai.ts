import { capabilities, type ProviderProfile } from './profile.ts';

export const openai: ProviderProfile<'openai'> = {
  id: 'openai',
  name: 'OpenAI',
  matches: (url) => url.hostname === 'api.openai.com',
  honours: capabilities({
    requiredChoice: 'yes',
    namedChoice: 'yes',
    strictSchemas: 'yes',
    parallelCalls: 'yes',
    images: 'yes',
    streamingToolCalls: 'yes',
  }),
  fixes: {},
  advice: [],
  sources: ['https://platform.openai.com/docs/api-reference/chat/create (tool_choice, parallel_tool_calls, strict)'],
};
