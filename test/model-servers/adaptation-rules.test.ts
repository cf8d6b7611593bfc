import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/agent/model-error.ts';
import { fixFor, showsChoiceIgnored } from '../../src/model-servers/adaptation-rules.ts';
import { readContextRefusal } from '../../src/model-servers/context-refusal.ts';
import { readPromptReuse } from '../../src/model-servers/prompt-reuse.ts';

/** A refusal as the transport throws it: the status and the server's own words. */
const refused = (status: number, message: string, code: string | null = null) =>
  new ModelError('rejected', { status, detail: message, reply: { code, message, body: null } });
const body = { model: 'm', messages: [], temperature: 0, tool_choice: 'required', parallel_tool_calls: true };
const named = { ...body, tool_choice: { type: 'function', function: { name: 'final_answer' } } };

describe('the fix a refusal names', () => {
  it.each([
    [
      'Gemini schema keywords',
      refused(
        400,
        `Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function.parameters': Cannot find field.\nInvalid JSON payload received. Unknown name "$schema" at 'tools[1].function.parameters': Cannot find field.`,
      ),
      { dropSchemaKeywords: ['additionalProperties', '$schema'] },
    ],
    [
      'Mistral ids',
      refused(400, 'Tool call id was call_123 but must be a-z, A-Z, 0-9, with a length of 9.'),
      { shortToolCallIds: true },
    ],
    [
      'DeepSeek reasoning',
      refused(
        400,
        'Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
      ),
      { reasoningBack: 'reasoning_content' },
    ],
    [
      'Gemini thought signatures',
      refused(400, 'Function call is missing a thought_signature in functionCall parts.'),
      { keepExtraContent: true },
    ],
    ['llama.cpp without --jinja', refused(500, 'tools param requires --jinja flag'), { toolProtocol: 'text' }],
    [
      'an Ollama model without tools',
      refused(400, 'registry.ollama.ai/library/gemma3:270m does not support tools'),
      { toolProtocol: 'text' },
    ],
    [
      'old Azure api-version',
      refused(400, 'tool_choice value as required is enabled only for api versions 2024-06-01 and later'),
      { toolProtocol: 'text' },
    ],
    [
      'a parameter it does not take',
      refused(400, "Unsupported parameter: 'temperature' is not supported with this model."),
      { dropParams: ['temperature'] },
    ],
    [
      'OpenAI-style unrecognized argument',
      refused(400, 'Unrecognized request argument supplied: parallel_tool_calls'),
      { dropParams: ['parallel_tool_calls'] },
    ],
    [
      "Azure's old models, without tools",
      refused(400, 'Unrecognized request arguments supplied: tool_choice, tools'),
      { toolProtocol: 'text' },
    ],
    [
      "Gemini's list of types, beside a keyword, fixed at once; `type` itself is never dropped",
      refused(
        400,
        `Invalid JSON payload received. Unknown name "type" at 'tools[0].function.parameters.properties[0].value': Proto field is not repeating, cannot start list.\nInvalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function.parameters': Cannot find field.`,
      ),
      { collapseTypeLists: true, dropSchemaKeywords: ['additionalProperties'] },
    ],
  ])('%s', (_, error, fixes) => {
    expect(fixFor(error, body, {})?.fixes).toEqual(fixes);
  });

  it("OpenRouter's tool_choice refusal: a named choice first becomes required with one tool, then the text protocol", () => {
    const error = refused(
      404,
      "No endpoints found that support the provided 'tool_choice' value. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing",
    );
    expect(fixFor(error, named, {})?.fixes).toEqual({ namedChoice: 'required-with-one-tool' });
    expect(fixFor(error, body, { namedChoice: 'required-with-one-tool' })?.fixes).toEqual({ toolProtocol: 'text' });
  });

  it('names no fix for a refusal that names none, for a fix already in place, or for a failure that is not a refusal', () => {
    expect(fixFor(refused(400, 'Invalid value for messages[0].content'), body, {})).toBeNull();
    expect(
      fixFor(refused(400, 'Tool call id was x but must be a-z, A-Z, 0-9, with a length of 9.'), body, {
        shortToolCallIds: true,
      }),
    ).toBeNull();
    expect(fixFor(refused(429, 'Unsupported parameter: temperature'), body, {})).toBeNull();
    // A parameter the request does not send is not one to drop.
    expect(fixFor(refused(400, 'Unsupported parameter: logprobs'), body, {})).toBeNull();
  });
});

describe('a model that refuses images', () => {
  const withImage = {
    ...body,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Ada: what is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ],
  };
  const llamaCpp = refused(
    500,
    'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj',
  );

  it('gets its images as names from then on, when the request held one', () => {
    expect(fixFor(llamaCpp, withImage, {})).toMatchObject({ fixes: { images: false } });
    expect(
      fixFor(refused(400, 'Invalid content type. image_url is only supported by certain models.'), withImage, {}),
    ).toMatchObject({ fixes: { images: false } });
    // No image sent: the words are about something else. Already fixed: no loop.
    expect(fixFor(llamaCpp, body, {})).toBeNull();
    expect(fixFor(llamaCpp, withImage, { images: false })).toBeNull();
  });

  it('knows the other wordings that say images are not taken', () => {
    for (const words of [
      'image input is not supported by this server',
      "The server was not compiled for multimodal or the model projector can't be loaded.",
      'Qwen/Qwen2.5-7B-Instruct is not a multimodal model',
      'This model does not support images',
      'vision is not enabled for this model',
    ])
      expect(fixFor(refused(400, words), withImage, {}), words).toMatchObject({ fixes: { images: false } });
  });

  it('keeps vision on for an error about one image', () => {
    for (const words of [
      'invalid image',
      'could not decode image',
      'Failed to load image: image too large',
      'illegal base64 data at input byte 5 (image_url)',
    ])
      expect(fixFor(refused(400, words), withImage, {}), words).toBeNull();
    expect(fixFor(refused(500, 'failed to process image'), withImage, {})).toBeNull();
  });
});

describe('what a reply without a call shows of the forced choice (the doctor and a run read it alike)', () => {
  it.each([
    ['prose that ended', { finishReason: 'stop', text: 'A red square.' }, true],
    ['an empty reply that ended', { finishReason: 'stop', text: '' }, true],
    // llama-server without a tool template: the model wrote prose until the length limit (issue 38).
    ['prose cut at the length limit', { finishReason: 'length', text: 'Once upon a time, there was' }, true],
    ['a call cut at the length limit', { finishReason: 'length', text: '{"tool_call": {"name": "pi' }, false],
    ['a tagged call cut at the length limit', { finishReason: 'length', text: '<tool_call>\n{"name"' }, false],
    ['nothing visible before the length limit (thinking)', { finishReason: 'length', text: '  ' }, false],
    ['a content filter', { finishReason: 'content_filter', text: 'I' }, false],
  ])('%s: %s', (_name, reply, shows) => {
    expect(showsChoiceIgnored(reply)).toBe(shows);
  });
});

describe('a refusal for the context size', () => {
  it("reads llama-server's sizes from its words, or from the body's fields", () => {
    const worded = refused(
      400,
      'request (2169 tokens) exceeds the available context size (2048 tokens), try increasing it',
    );
    expect(readContextRefusal(worded)).toEqual({ promptTokens: 2169, contextTokens: 2048 });
    const fields = new ModelError('rejected', {
      status: 400,
      detail: 'too long',
      reply: {
        code: null,
        message: 'the request exceeds the available context size',
        body: { error: { n_prompt_tokens: 9000, n_ctx: 8192 } },
      },
    });
    expect(readContextRefusal(fields)).toEqual({ promptTokens: 9000, contextTokens: 8192 });
    expect(readContextRefusal(refused(400, 'Invalid tool_choice'))).toBeNull();
  });
});

describe('prompt reuse, as each server says it', () => {
  it("reads llama.cpp's timings, and OpenAI's and vLLM's cached tokens; null when a reply says neither", () => {
    expect(readPromptReuse({ usage: { prompt_tokens: 2169 }, timings: { cache_n: 2168, prompt_n: 1 } })).toEqual({
      promptTokens: 2169,
      cachedTokens: 2168,
      source: 'timings.cache_n',
    });
    expect(readPromptReuse({ usage: { prompt_tokens: 1500, prompt_tokens_details: { cached_tokens: 1280 } } })).toEqual(
      {
        promptTokens: 1500,
        cachedTokens: 1280,
        source: 'usage.prompt_tokens_details.cached_tokens',
      },
    );
    expect(readPromptReuse({ usage: { prompt_tokens: 1500, prompt_tokens_details: null } })).toBeNull();
    expect(readPromptReuse(null)).toBeNull();
  });
});
