import { capabilities, portOf, type ProviderProfile } from './profile.ts';

/**
 * LM Studio takes `tool_choice` as a string only ("required" only with its llama.cpp engine), and is
 * reported to ignore it (an empty reply, or the call left as text in `content`).
 */
export const lmstudio: ProviderProfile<'lmstudio'> = {
  id: 'lmstudio',
  name: 'LM Studio',
  matches: (url) => portOf(url) === '1234',
  honours: capabilities({
    namedChoice: 'no',
    streamingToolCalls: 'yes',
  }),
  fixes: { namedChoice: 'required-with-one-tool' },
  advice: ['load a model with native tool use (a hammer badge in LM Studio); MLX models do not enforce "required"'],
  sources: [
    'https://lmstudio.ai/docs/developer/api-changelog (0.3.15: tool_choice "auto" | "none" | "required", required on llama.cpp only)',
    'https://github.com/lmstudio-ai/docs/issues/177 (no named tool_choice)',
    'https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1904 (required ignored: empty reply)',
  ],
};
