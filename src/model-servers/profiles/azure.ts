import { capabilities, type ProviderProfile } from './profile.ts';

/**
 * Azure OpenAI: the key goes in an `api-key` header. The v1 API takes the deployment as `model`
 * at `https://<resource>.openai.azure.com/openai/v1/`; the older deployment URL
 * (`…/openai/deployments/<deployment>`) needs `?api-version=`, kept from OPENAI_BASE_URL.
 * `tool_choice: "required"` needs api-version 2024-06-01 or later; older ones answer
 * "tool_choice value as required is enabled only for api versions 2024-06-01 and later" (the bot
 * then falls back to the text protocol).
 */
export const azure: ProviderProfile<'azure'> = {
  id: 'azure',
  name: 'Azure OpenAI',
  matches: (url) =>
    ['.openai.azure.com', '.services.ai.azure.com', '.cognitiveservices.azure.com'].some((host) =>
      url.hostname.endsWith(host),
    ),
  honours: capabilities({
    requiredChoice: 'yes',
    namedChoice: 'yes',
    strictSchemas: 'yes',
    parallelCalls: 'yes',
    images: 'yes',
    streamingToolCalls: 'yes',
  }),
  fixes: {},
  connection(baseURL, apiKey) {
    const url = new URL(baseURL);
    const apiVersion = url.searchParams.get('api-version');
    url.search = '';
    return {
      baseURL: url.toString().replace(/\/$/, ''),
      headers: apiKey ? { 'api-key': apiKey } : undefined,
      query: apiVersion ? { 'api-version': apiVersion } : undefined,
    };
  },
  advice: [
    'OPENAI_BASE_URL=https://<resource>.openai.azure.com/openai/v1 and OPENAI_MODEL=<deployment name>',
    'or the deployment URL with ?api-version=2024-06-01 or later ("required" tool choice needs it)',
  ],
  sources: [
    'https://learn.microsoft.com/azure/foundry/openai/api-version-lifecycle (the v1 API)',
    'https://github.com/langchain-ai/langchain/issues/29936 (required needs api-version 2024-06-01)',
    'https://github.com/BerriAI/litellm/issues/3876 ("$.tool_choice is invalid" on 2024-02-01)',
  ],
};
