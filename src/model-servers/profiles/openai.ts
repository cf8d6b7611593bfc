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
  fixes: { promptCacheKey: true },
  advice: [],
  sources: [
    'https://platform.openai.com/docs/api-reference/chat/create (tool_choice, parallel_tool_calls, strict, prompt_cache_key)',
    'https://platform.openai.com/docs/guides/prompt-caching (prefixes of 1,024 tokens and more; prompt_cache_key routes requests that share one)',
  ],
};
