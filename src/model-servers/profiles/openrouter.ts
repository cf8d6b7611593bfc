import { capabilities, type ProviderProfile } from './profile.ts';

/**
 * OpenRouter spreads a model's requests over its providers, some of which drop parameters they do
 * not take (tools among them) unless `provider.require_parameters` is set.
 */
export const openrouter: ProviderProfile<'openrouter'> = {
  id: 'openrouter',
  name: 'OpenRouter',
  matches: (url) => url.hostname === 'openrouter.ai',
  honours: capabilities({
    streamingToolCalls: 'yes',
  }),
  fixes: { extraBody: { provider: { require_parameters: true } } },
  advice: ['pick a model whose providers support tool use (openrouter.ai/models?supported_parameters=tools)'],
  sources: [
    'https://openrouter.ai/docs/features/provider-routing (require_parameters)',
    'https://github.com/zed-industries/zed/issues/36094 (404 "No endpoints found that support the provided tool_choice value")',
  ],
};
