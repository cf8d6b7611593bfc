import { describe, expect, it } from 'vitest';
import { findTextToolCalls } from '../../src/model-servers/text-tool-calls.ts';
import { readReply } from '../../src/model-servers/wire-reply.ts';
import { runOnce } from '../support/agent-harness.ts';
import { startScriptedModel, text } from '../support/fake-model.ts';

const tools = new Set(['calculator', 'final_answer', 'web_search']);
const find = (text: string) => findTextToolCalls(text, tools);

describe('tool calls written as text', () => {
  it('reads Hermes / Qwen <tool_call> blocks, several, with text around them', () => {
    const text =
      'Let me work it out.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>\n<tool_call>\n{"name": "web_search", "arguments": {"query": "pi"}}\n</tool_call>';
    expect(find(text)).toEqual([
      { name: 'calculator', arguments: '{"expression":"2+2"}' },
      { name: 'web_search', arguments: '{"query":"pi"}' },
    ]);
  });

  it("reads Qwen3-Coder's XML parameters inside <tool_call>, and a block cut off before its closing tag", () => {
    expect(
      find('<tool_call>\n<function=calculator>\n<parameter=expression>\n2*3\n</parameter>\n</function>\n</tool_call>'),
    ).toEqual([{ name: 'calculator', arguments: '{"expression":"2*3"}' }]);
    expect(find('<tool_call>{"name": "calculator", "arguments": {"expression": "1"}}')).toEqual([
      { name: 'calculator', arguments: '{"expression":"1"}' },
    ]);
  });

  it("reads a bare JSON object, Llama's parameters and python tag, and calls joined by ;", () => {
    expect(find('{"name": "calculator", "arguments": {"expression": "3"}}')).toEqual([
      { name: 'calculator', arguments: '{"expression":"3"}' },
    ]);
    expect(
      find(
        '<|python_tag|>{"name": "calculator", "parameters": {"expression": "4"}}; {"name": "web_search", "parameters": {"query": "x"}}',
      ),
    ).toEqual([
      { name: 'calculator', arguments: '{"expression":"4"}' },
      { name: 'web_search', arguments: '{"query":"x"}' },
    ]);
  });

  it('reads a fenced json block in the text protocol when the text is nothing but blocks, and arguments given as JSON text', () => {
    const block = '```json\n{"name": "final_answer", "arguments": "{\\"answer\\": \\"4\\"}"}\n```';
    expect(findTextToolCalls(`${block}\n`, tools, { fenced: true })).toEqual([
      { name: 'final_answer', arguments: '{"answer": "4"}' },
    ]);
    // In the native protocol, or among prose (an example shown), a block is text.
    expect(find(block)).toEqual([]);
    expect(findTextToolCalls(`Here is how a call looks:\n${block}`, tools, { fenced: true })).toEqual([]);
  });

  it("reads Mistral's [TOOL_CALLS] in both forms, and LM Studio's [TOOL_REQUEST]", () => {
    expect(find('[TOOL_CALLS] [{"name": "calculator", "arguments": {"expression": "5"}}]')).toEqual([
      { name: 'calculator', arguments: '{"expression":"5"}' },
    ]);
    expect(find('[TOOL_CALLS]calculator{"expression": "6"}[TOOL_CALLS]web_search{"query": "y"}')).toEqual([
      { name: 'calculator', arguments: '{"expression":"6"}' },
      { name: 'web_search', arguments: '{"query":"y"}' },
    ]);
    expect(find('[TOOL_REQUEST]{"name": "calculator", "arguments": {"expression": "7"}}[END_TOOL_REQUEST]')).toEqual([
      { name: 'calculator', arguments: '{"expression":"7"}' },
    ]);
  });

  it("reads the forms Groq's failed_generation shows", () => {
    expect(find('web_search{"query": "SPFMV 2016", "filter_year": 2016}</function>')).toEqual([
      { name: 'web_search', arguments: '{"query":"SPFMV 2016","filter_year":2016}' },
    ]);
    expect(find('<function=calculator{"expression": "8"}</function>')).toEqual([
      { name: 'calculator', arguments: '{"expression":"8"}' },
    ]);
  });

  it('takes no call from prose, JSON that names no offered tool, or a broken object', () => {
    expect(find('The answer is 4. {braces} are fine in prose.')).toEqual([]);
    expect(find('{"name": "Ada", "arguments": {"age": 3}}')).toEqual([]);
    expect(find('<tool_call>{"name": "calculator", "arguments": {"expression": </tool_call>')).toEqual([]);
    expect(find('{"answer": "4"}')).toEqual([]);
  });
});

describe('a reply read in full', () => {
  const read = (message: Record<string, unknown>, textProtocol = false) =>
    readReply(
      { choices: [{ message: { role: 'assistant', ...message }, finish_reason: 'stop' }] },
      { toolNames: tools, shortIds: false, textProtocol },
    );

  it('finds a call in the reasoning when the content is empty (ollama/ollama#15288)', () => {
    const reply = read({
      content: '',
      reasoning: '<tool_call>{"name": "calculator", "arguments": {"expression": "1"}}</tool_call>',
    });
    expect(reply.message.tool_calls).toMatchObject([
      { function: { name: 'calculator', arguments: '{"expression":"1"}' } },
    ]);
    expect(reply.message.content).toBeNull();
  });

  it('takes a call naming a tool not offered, or in a form it cannot read, for a failed call, never for an answer', () => {
    const block = '```json\n{"name": "search_the_web", "parameters": {"q": "x"}}\n```';
    expect(read({ content: block }, true).rejectedCall).toContain('one of: calculator');
    for (const content of [
      '{"name": "delete_everything", "arguments": {}}',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calculator',
      '<|channel|>commentary to=functions.calculator <|message|>{"expression": "2"}',
    ]) {
      const reply = read({ content });
      expect(reply.message.tool_calls).toBeUndefined();
      expect(reply.rejectedCall, content).toContain('one of: calculator, final_answer, web_search');
    }
    expect(read({ content: 'Plain words, and {"answer": 4} in passing.' }).rejectedCall).toBeUndefined();
  });
});

describe('a json block in an answer that shows a call', () => {
  const example =
    'A call looks like this:\n```json\n{"name": "calculator", "arguments": {"expression": "6*7"}}\n```\nThat is all it takes.';

  it.each([false, true])('is text, never run (text protocol: %s)', (textProtocol) => {
    const reply = readReply(
      { choices: [{ message: { role: 'assistant', content: example }, finish_reason: 'stop' }] },
      { toolNames: tools, shortIds: false, textProtocol },
    );
    expect(reply.message.tool_calls).toBeUndefined();
    expect(reply.message.content).toBe(example);
    expect(reply.rejectedCall).toBeUndefined();
  });

  it('through the loop: the answer written in plain text is posted as written, and its example is not run', async () => {
    const scripted = await startScriptedModel();
    try {
      // Plain text twice (the second time, after the nudge, it is the answer).
      scripted.enqueue(text(example), text(example));
      const run = await runOnce(scripted);
      expect(run.answer?.answer).toBe(example);
      expect(run.events.filter((event) => event.type === 'tool-call')).toEqual([]);
    } finally {
      await scripted.close();
    }
  });
});
