import { capabilities, type ProviderProfile } from './profile.ts';

/**
 * Mistral refuses tool-call ids that are not exactly nine letters or digits ("Tool call id was … but
 * must be a-z, A-Z, 0-9, with a length of 9."), which history from `/tool` or another model has.
 */
export const mistral: ProviderProfile<'mistral'> = {
  id: 'mistral',
  name: 'Mistral',
  matches: (url) => url.hostname === 'api.mistral.ai',
  honours: capabilities({
    requiredChoice: 'yes',
    namedChoice: 'yes',
    parallelCalls: 'yes',
    streamingToolCalls: 'yes',
  }),
  fixes: { shortToolCallIds: true, promptCacheKey: true },
  advice: [],
  sources: [
    'https://github.com/langchain-ai/langchain/pull/24668 and https://github.com/nearai/ironclaw/issues/1241 (the id rule, 400)',
    'https://docs.mistral.ai/capabilities/function_calling/ (tool_choice any | required | named)',
    'https://docs.mistral.ai/studio-api/conversations/advanced/prompt-caching (prompt_cache_key: one per conversation)',
  ],
};
