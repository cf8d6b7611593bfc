/** Quirks of hosted APIs (Gemini, Mistral, Groq), each with its source, in their wire format. */
import { type Quirk, render } from './quirk-rendering.ts';

const geminiRefusedKeywords = [
  'additionalProperties',
  '$schema',
  'strict',
  'const',
  'propertyNames',
  '$defs',
  'examples',
];

/** Gemini's errors come as a list: `[{"error": {…}}]` (discuss.ai.google.dev thread on thought signatures). */
const geminiError = (message: string) => ({
  status: 400,
  body: [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }],
});

function keywordsIn(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) value.forEach((item) => keywordsIn(item, found));
  else if (typeof value === 'object' && value !== null)
    for (const [key, inner] of Object.entries(value)) {
      if (geminiRefusedKeywords.includes(key)) found.add(key);
      // Names under `properties` are the author's, not keywords.
      if (key === 'properties' && typeof inner === 'object' && inner !== null)
        Object.values(inner).forEach((child) => keywordsIn(child, found));
      else keywordsIn(inner, found);
    }
}

/**
 * Gemini's OpenAI endpoint: schema keywords outside its subset are refused (`Unknown name
 * "additionalProperties" at 'tools[0].function.parameters': Cannot find field.`:
 * openswarm-ai/openswarm#24, zed-industries/zed#44875, the `strict` field: router-for-me/CLIProxyAPI#102),
 * and each call's thought signature (`extra_content.google.thought_signature`) must come back with
 * it, or: "Function call is missing a thought_signature in functionCall parts." (ai.google.dev/
 * gemini-api/docs/thought-signatures; the wire form from discuss.ai.google.dev/t/…/109823).
 */
export const gemini: Quirk = {
  name: 'gemini: schema subset and thought signatures',
  source: 'https://ai.google.dev/gemini-api/docs/thought-signatures',
  refuse(request, state) {
    const problems: string[] = [];
    (request.tools ?? []).forEach((tool, index) => {
      // A list of types: zed-industries/zed#53919 (and nanbingxyz/5ire#218) show this message.
      if (JSON.stringify((tool.function as { parameters?: unknown }).parameters ?? {}).includes('"type":['))
        problems.push(
          `Invalid JSON payload received. Unknown name "type" at 'tools[${index}].function.parameters.properties[0].value': Proto field is not repeating, cannot start list.`,
        );
      const found = new Set<string>();
      keywordsIn((tool.function as { parameters?: unknown }).parameters, found);
      for (const keyword of found)
        problems.push(
          `Invalid JSON payload received. Unknown name "${keyword}" at 'tools[${index}].function.parameters': Cannot find field.`,
        );
      if ('strict' in tool.function)
        problems.push(
          `Invalid JSON payload received. Unknown name "strict" at 'tools[${index}].function': Cannot find field.`,
        );
    });
    if (problems.length > 0) return geminiError(problems.join('\n'));
    const issued = (state.get('signatures') as Map<string, string> | undefined) ?? new Map<string, string>();
    for (const message of request.messages) {
      const first = (
        message.tool_calls as { id: string; extra_content?: { google?: { thought_signature?: string } } }[] | undefined
      )?.[0];
      const expected = first && issued.get(first.id);
      if (expected && first.extra_content?.google?.thought_signature !== expected)
        return geminiError(
          'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
        );
    }
    return null;
  },
  render(intent, request, state, next) {
    const rendered = render(intent, request, next);
    const calls = rendered.message.tool_calls as { id: string; extra_content?: unknown }[] | undefined;
    if (calls?.[0]) {
      const signatures = (state.get('signatures') as Map<string, string> | undefined) ?? new Map<string, string>();
      const signature = `sig-${calls[0].id}`;
      signatures.set(calls[0].id, signature);
      state.set('signatures', signatures);
      // Only the first call of a step carries one (continuedev/continue#8865).
      calls[0].extra_content = { google: { thought_signature: signature } };
    }
    return rendered;
  },
};

/**
 * Mistral: tool-call ids must be nine letters or digits, in history sent back too; otherwise 400
 * `Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9.` (langchain-ai/langchain#24668).
 */
export const mistral: Quirk = {
  name: 'mistral: nine-character tool-call ids',
  source: 'https://github.com/langchain-ai/langchain/pull/24668',
  refuse(request) {
    const ids = request.messages.flatMap((message) => [
      ...((message.tool_calls as { id: string }[] | undefined) ?? []).map((toolCall) => toolCall.id),
      ...(message.tool_call_id === undefined ? [] : [message.tool_call_id]),
    ]);
    const bad = ids.find((id) => !/^[A-Za-z0-9]{9}$/.test(id));
    if (bad === undefined) return null;
    return {
      status: 400,
      body: {
        object: 'error',
        message: `Tool call id was ${bad} but must be a-z, A-Z, 0-9, with a length of 9.`,
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    };
  },
  render: (intent, request, _state, next) =>
    render(intent, request, next, { id: (n) => `mst${String(n).padStart(6, '0')}` }),
};

/**
 * Groq: a call the model wrote that cannot be parsed is a 400 `tool_use_failed` carrying the
 * model's text in `failed_generation` (huggingface/smolagents#1119).
 */
export const groq: Quirk = {
  name: 'groq: tool_use_failed',
  source: 'https://github.com/huggingface/smolagents/issues/1119',
  render(intent, request, _state, next) {
    // Plain text where a call was forced is a failed call too, the text in failed_generation
    // (agno-agi/agno#4090).
    const forced =
      request.tool_choice !== undefined && request.tool_choice !== 'auto' && request.tool_choice !== 'none';
    if ('say' in intent && forced) intent = { broken: intent.say };
    if (!('broken' in intent)) return render(intent, request, next);
    return {
      status: 400,
      body: {
        error: {
          message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
          type: 'invalid_request_error',
          code: 'tool_use_failed',
          failed_generation: intent.broken,
        },
      },
    };
  },
};
