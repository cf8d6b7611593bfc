import { capabilities, type ProviderProfile } from './profile.ts';

/**
 * DeepSeek's thinking mode returns `reasoning_content`, and needs it back on every assistant turn
 * that called tools ("Missing `reasoning_content` field in the assistant message …", 400).
 */
export const deepseek: ProviderProfile<'deepseek'> = {
  id: 'deepseek',
  name: 'DeepSeek',
  matches: (url) => url.hostname === 'api.deepseek.com',
  honours: capabilities({
    images: 'no',
    streamingToolCalls: 'yes',
  }),
  fixes: { reasoningBack: 'reasoning_content' },
  advice: [],
  sources: [
    'https://api-docs.deepseek.com/guides/thinking_mode#tool-calls (reasoning_content passed back on tool-call turns)',
    'https://github.com/continuedev/continue/issues/10193 (the 400 when it is missing)',
  ],
};
