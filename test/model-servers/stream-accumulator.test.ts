import { describe, expect, it } from 'vitest';
import { StreamAccumulator } from '../../src/model-servers/stream-accumulator.ts';

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('a streamed reply put back together', () => {
  it("gathers content, reasoning, each call's pieces by index, the finish reason and the last chunk's usage", () => {
    const reply = new StreamAccumulator();
    reply.add(chunk({ role: 'assistant', content: '' }));
    reply.add(chunk({ reasoning_content: 'Let me ' }));
    reply.add(chunk({ reasoning_content: 'think.' }));
    expect(
      reply.add(
        chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'add', arguments: '' } }] }),
      ),
    ).toEqual([]);
    reply.add(
      chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'mul', arguments: '{"x"' } }] }),
    );
    expect(reply.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }))).toEqual([
      { index: 0, name: 'add', arguments: '{"a":1}' },
    ]);
    reply.add(chunk({ tool_calls: [{ index: 1, function: { arguments: ':2}' } }] }));
    reply.add(chunk({}, 'tool_calls'));
    reply.add({ model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });

    expect(reply.completion()).toEqual({
      object: 'chat.completion',
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            reasoning_content: 'Let me think.',
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'add', arguments: '{"a":1}' } },
              { id: 'b', type: 'function', function: { name: 'mul', arguments: '{"x":2}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it("places pieces without an index by their id, or on the last call (Gemini), and keeps a call's extra_content", () => {
    const reply = new StreamAccumulator();
    reply.add(
      chunk({
        tool_calls: [
          {
            id: 'g1',
            function: { name: 'ping', arguments: '{"v":' },
            extra_content: { google: { thought_signature: 's' } },
          },
        ],
      }),
    );
    reply.add(chunk({ tool_calls: [{ function: { arguments: '"a"}' } }] }));
    reply.add(chunk({ tool_calls: [{ id: 'g2', function: { name: 'pong', arguments: '{}' } }] }));
    reply.add(chunk({ tool_calls: [{ id: 'g1', function: { arguments: '' } }] }));
    const message = (reply.completion() as { choices: { message: { tool_calls: unknown[] } }[] }).choices[0]!.message;
    expect(message.tool_calls).toEqual([
      {
        id: 'g1',
        type: 'function',
        function: { name: 'ping', arguments: '{"v":"a"}' },
        extra_content: { google: { thought_signature: 's' } },
      },
      { id: 'g2', type: 'function', function: { name: 'pong', arguments: '{}' } },
    ]);
  });

  it('keeps plain text as content, and an empty reply as empty', () => {
    const text = new StreamAccumulator();
    text.add(chunk({ content: 'Hel' }));
    text.add(chunk({ content: 'lo.' }, 'stop'));
    expect(text.completion()).toMatchObject({ choices: [{ message: { content: 'Hello.' }, finish_reason: 'stop' }] });
    expect(new StreamAccumulator().completion()).toMatchObject({
      choices: [{ message: { content: '' } }],
      usage: null,
    });
  });
});

describe('calls written as <tool_call> text, followed as the text grows', () => {
  const reply =
    'Sure.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>\n' +
    '<tool_call>\n{"name": "final_answer", "arguments": {"answer": "It is \\"4\\".", "tools_used": []}}\n</tool_call>';

  it('tells each block’s arguments so far, under its place among the blocks, whatever the cuts', () => {
    for (const size of [1, 2, 3, 7, 40]) {
      const accumulator = new StreamAccumulator();
      const told: { index: number; name: string; arguments: string }[] = [];
      for (let at = 0; at < reply.length; at += size)
        told.push(...accumulator.add(chunk({ content: reply.slice(at, at + size) })));
      const lastOf = (index: number) => told.filter((call) => call.index === index).at(-1);
      expect(lastOf(0)).toEqual({ index: 0, name: 'calculator', arguments: '{"expression": "2+2"}}\n' });
      expect(lastOf(1)?.name).toBe('final_answer');
      expect(lastOf(1)?.arguments).toBe('{"answer": "It is \\"4\\".", "tools_used": []}}\n');
      // Each telling of a call is a longer prefix of what it ends as.
      for (const [position, call] of told.entries()) {
        expect(lastOf(call.index)!.arguments.startsWith(call.arguments)).toBe(true);
        const earlier = told.slice(0, position).findLast((other) => other.index === call.index);
        if (earlier) expect(call.arguments.length).toBeGreaterThan(earlier.arguments.length);
      }
      // The reply itself is untouched: the calls are read from its content as before.
      expect(
        (accumulator.completion() as { choices: { message: { content: string } }[] }).choices[0]!.message.content,
      ).toBe(reply);
    }
  });

  it('follows no text calls in a reply that has calls of its own', () => {
    const accumulator = new StreamAccumulator();
    accumulator.add(
      chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'add', arguments: '{}' } }] }),
    );
    expect(accumulator.add(chunk({ content: '<tool_call>\n{"name": "final_answer", "arguments": {"a' }))).toEqual([]);
  });
});
