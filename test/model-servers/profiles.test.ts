import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/agent/model-client.ts';
import { profileFor } from '../../src/model-servers/profiles/index.ts';
import { shortToolCallId } from '../../src/model-servers/tool-call-ids.ts';
import { buildChatBody } from '../../src/model-servers/wire-request.ts';

describe('the provider profile, from OPENAI_BASE_URL', () => {
  it.each([
    ['https://api.openai.com/v1', 'openai'],
    ['https://my-res.openai.azure.com/openai/v1', 'azure'],
    ['https://api.groq.com/openai/v1', 'groq'],
    ['https://openrouter.ai/api/v1', 'openrouter'],
    ['https://generativelanguage.googleapis.com/v1beta/openai', 'gemini'],
    ['https://api.mistral.ai/v1', 'mistral'],
    ['https://api.deepseek.com', 'deepseek'],
    ['http://localhost:11434/v1', 'ollama'],
    ['http://gpu-box:8080/v1', 'llamacpp'],
    ['http://127.0.0.1:8000/v1', 'vllm'],
    ['http://localhost:1234/v1', 'lmstudio'],
    ['https://llm.example.internal/v1', 'generic'],
  ])('%s is %s', (url, id) => {
    expect(profileFor('auto', url).id).toBe(id);
  });

  it('is the one MODEL_PROVIDER names, whatever the URL', () => {
    expect(profileFor('ollama', 'https://llm.example.internal/v1').id).toBe('ollama');
  });

  it("connects to Azure with the key as api-key and the URL's api-version as a query", () => {
    const connection = profileFor('auto', 'https://r.openai.azure.com/openai/deployments/gpt/?api-version=2024-06-01')
      .connection!('https://r.openai.azure.com/openai/deployments/gpt/?api-version=2024-06-01', 'key-1');
    expect(connection).toEqual({
      baseURL: 'https://r.openai.azure.com/openai/deployments/gpt',
      headers: { 'api-key': 'key-1' },
      query: { 'api-version': '2024-06-01' },
    });
  });
});

const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Ada: 2+2?' },
    {
      role: 'assistant',
      content: null,
      reasoning: 'Use the calculator.',
      tool_calls: [
        {
          id: 'call_0f9a1b2c-long-uuid',
          type: 'function',
          function: { name: 'calculator', arguments: '{"expression":"2+2"}' },
          extra_content: { google: { thought_signature: 'sig' } },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_0f9a1b2c-long-uuid', content: '4' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'calculator',
        description: 'Arithmetic.',
        parameters: {
          type: 'object',
          properties: { expression: { type: 'string', title: 'x' } },
          required: ['expression'],
          additionalProperties: false,
        },
        strict: true,
      },
    },
    {
      type: 'function',
      function: { name: 'final_answer', description: 'Answer.', parameters: { type: 'object' }, strict: false },
    },
  ],
  toolChoice: { name: 'final_answer' },
};
const settings = { model: 'm', temperature: 0 };
const bodyFor = (provider: Parameters<typeof profileFor>[0]) =>
  buildChatBody(request, settings, profileFor(provider, 'http://x/v1').fixes) as Record<string, any>;

describe('the request, as each server takes it', () => {
  it('is the OpenAI request for OpenAI: no reasoning, no extra_content, ids as they are', () => {
    const body = bodyFor('openai');
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'final_answer' } });
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_0f9a1b2c-long-uuid',
          type: 'function',
          function: { name: 'calculator', arguments: '{"expression":"2+2"}' },
        },
      ],
    });
    expect(body.tools[0].function.parameters.additionalProperties).toBe(false);
  });

  it('llama.cpp and LM Studio: a named choice sent as "required" with that tool alone', () => {
    for (const provider of ['llamacpp', 'lmstudio'] as const) {
      const body = bodyFor(provider);
      expect(body.tool_choice).toBe('required');
      expect(body.tools.map((tool: any) => tool.function.name)).toEqual(['final_answer']);
    }
  });

  it('Gemini: refused keywords left out (property names kept), thought signatures sent back', () => {
    const body = bodyFor('gemini');
    const calculator = body.tools[0].function;
    expect(calculator.strict).toBeUndefined();
    expect(calculator.parameters).toEqual({
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
    });
    expect(body.messages[2].tool_calls[0].extra_content).toEqual({ google: { thought_signature: 'sig' } });
  });

  it('Mistral: every id nine letters or digits, a call and its result still paired', () => {
    const body = bodyFor('mistral');
    const id = body.messages[2].tool_calls[0].id;
    expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(body.messages[3].tool_call_id).toBe(id);
    expect(shortToolCallId('abcDEF123')).toBe('abcDEF123');
  });

  it('DeepSeek: reasoning back as reasoning_content on a tool-call turn', () => {
    expect(bodyFor('deepseek').messages[2].reasoning_content).toBe('Use the calculator.');
  });

  it('OpenRouter: only providers that take every parameter sent', () => {
    expect(bodyFor('openrouter').provider).toEqual({ require_parameters: true });
  });

  it('text protocol: no tools in the API, calls and results written out', () => {
    const body = buildChatBody(request, settings, { toolProtocol: 'text' }) as Record<string, any>;
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
    expect(body.messages[0].content).toContain('<tools>\n{"name":"calculator"');
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: '<tool_call>\n{"name":"calculator","arguments":{"expression":"2+2"}}\n</tool_call>',
    });
    expect(body.messages[3]).toEqual({
      role: 'user',
      content: '<tool_response>\n{"name":"calculator","content":"4"}\n</tool_response>',
    });
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Reply now with a call of final_answer, and nothing else.',
    });
  });
});

describe('prompt_cache_key', () => {
  it('OpenAI and Mistral: one key per conversation, which does not show its ids; a server whose profile does not say it honours it gets none', () => {
    const keyed = { ...request, cacheKey: '123456789012345678:234567890123456789:345678901234567890' };
    const openai = profileFor('openai', 'http://x/v1').fixes;
    expect(buildChatBody(keyed, settings, profileFor('mistral', 'http://x/v1').fixes)).toHaveProperty(
      'prompt_cache_key',
    );
    const key = (buildChatBody(keyed, settings, openai) as Record<string, any>).prompt_cache_key;
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect((buildChatBody(keyed, settings, openai) as Record<string, any>).prompt_cache_key).toBe(key);
    expect(
      (buildChatBody({ ...keyed, cacheKey: 'another conversation' }, settings, openai) as Record<string, any>)
        .prompt_cache_key,
    ).not.toBe(key);
    for (const provider of ['llamacpp', 'ollama', 'vllm', 'generic', 'azure', 'gemini'] as const)
      expect(buildChatBody(keyed, settings, profileFor(provider, 'http://x/v1').fixes)).not.toHaveProperty(
        'prompt_cache_key',
      );
  });
});
