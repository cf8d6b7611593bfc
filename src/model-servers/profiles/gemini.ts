import { capabilities, type ProviderProfile } from './profile.ts';

/**
 * Gemini's OpenAI endpoint takes a subset of JSON Schema: `additionalProperties`, `$schema`,
 * `strict` and others are refused with 400 `Unknown name "…" … Cannot find field.`, and a list of
 * types with "Proto field is not repeating, cannot start list.". Gemini 3 needs
 * each tool call's `extra_content.google.thought_signature` back on the next turn.
 */
export const gemini: ProviderProfile<'gemini'> = {
  id: 'gemini',
  name: 'Google Gemini',
  matches: (url) => url.hostname === 'generativelanguage.googleapis.com',
  honours: capabilities({
    strictSchemas: 'no',
    parallelCalls: 'yes',
    images: 'yes',
    streamingToolCalls: 'yes',
  }),
  fixes: {
    // `title` and `default` too: older versions refused them (datastax/astra-assistants-api#73).
    dropSchemaKeywords: [
      'additionalProperties',
      '$schema',
      'strict',
      'const',
      'propertyNames',
      '$defs',
      'examples',
      'title',
      'default',
      // Named in the issue among the keywords refused; not confirmed in a source found (COMPATIBILITY.md).
      'exclusiveMinimum',
      'exclusiveMaximum',
    ],
    collapseTypeLists: true,
    keepExtraContent: true,
  },
  advice: ['OPENAI_BASE_URL=https://generativelanguage.googleapis.com/v1beta/openai and a Gemini API key'],
  sources: [
    'https://ai.google.dev/gemini-api/docs/openai (the endpoint)',
    'https://ai.google.dev/gemini-api/docs/thought-signatures (signatures must be sent back)',
    'https://github.com/openswarm-ai/openswarm/issues/24 and https://github.com/zed-industries/zed/issues/44875 (refused keywords)',
    'https://github.com/datastax/astra-assistants-api/issues/73 (title, default, $defs, examples)',
    'https://discuss.ai.google.dev/t/openai-api-compatibility-broken-due-to-thought-signature-on-gemini-3-pro-preview/109823 (extra_content.google.thought_signature)',
  ],
};
