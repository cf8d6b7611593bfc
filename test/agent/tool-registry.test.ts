import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromJsonSchemaTool } from '../../src/agent/runtime-tool.ts';
import { isStrictCompatible } from '../../src/agent/strict-schema.ts';
import { buildToolRegistry, toolsFor } from '../../src/agent/tool-registry.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { builtInTools } from '../../tools/index.ts';
import { chatRequestProblems } from '../support/openai-conformance.ts';

const secret = defineTool({
  name: 'secret',
  description: 'Moderators only.',
  parameters: z.object({}),
  moderatorOnly: true,
  execute: () => 'ok',
});

describe('tool registry', () => {
  it('gives every built-in tool a strict schema OpenAI accepts', () => {
    const tools = buildToolRegistry(builtInTools);
    for (const tool of tools) expect(tool.spec.function.strict, tool.name).toBe(true);
    const body = {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: tools.map((tool) => tool.spec),
      tool_choice: 'required',
    };
    expect(chatRequestProblems(body)).toEqual([]);
  });

  it('derives the schema of what the model writes, so tools with defaults and transforms register', () => {
    const shout = defineTool({
      name: 'shout',
      description: 'Upper-cases text.',
      parameters: z.object({
        text: z.string().transform((value) => value.toUpperCase()),
        times: z.number().default(1),
      }),
      execute: ({ text, times }) => text.repeat(times),
    });
    const [tool] = buildToolRegistry([shout]);
    expect(tool!.inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' }, times: { type: 'number', default: 1 } },
      required: ['text'],
      additionalProperties: false,
    });
    // The model may leave out `times`, so the schema cannot be strict.
    expect(tool!.spec.function.strict).toBe(false);
  });

  it('sends schemas with keywords strict mode rejects (tuples) as non-strict; a oneOf union goes as anyOf, which it takes', () => {
    const union = defineTool({
      name: 'shape',
      description: 'A shape.',
      parameters: z.object({
        shape: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('circle'), r: z.number() }),
          z.object({ kind: z.literal('square'), side: z.number() }),
        ]),
      }),
      execute: () => 'ok',
    });
    const tuple = defineTool({
      name: 'point',
      description: 'A point.',
      parameters: z.object({ at: z.tuple([z.number(), z.number()]) }),
      execute: () => 'ok',
    });
    const [unionTool, tupleTool] = buildToolRegistry([union, tuple]);
    // zod writes the discriminated union as oneOf, which grammar engines may refuse (grammar-safe-schema.ts):
    // the model is sent anyOf, and the validator still holds the call to one branch.
    const sentShape = (unionTool!.spec.function.parameters.properties as Record<string, Record<string, unknown>>)
      .shape!;
    expect(Object.keys(sentShape)).toContain('anyOf');
    expect(Object.keys(sentShape)).not.toContain('oneOf');
    expect(unionTool!.spec.function.strict).toBe(true);
    expect(unionTool!.validate({ shape: { kind: 'circle', side: 2 } }).ok).toBe(false);
    expect(tupleTool!.spec.function.strict).toBe(false);
  });

  it('refuses duplicate names and the name final_answer', () => {
    expect(() => buildToolRegistry([secret, secret])).toThrow(/two tools are named "secret"/);
    expect(() => buildToolRegistry([{ ...secret, name: 'final_answer' }])).toThrow(/final_answer/);
    expect(() => buildToolRegistry([{ ...secret, name: 'has space' }])).toThrow(/must match/);
  });

  it('offers moderator-only tools only when every requester is a moderator', () => {
    const tools = buildToolRegistry([...builtInTools, secret]);
    const moderator = { id: '1', displayName: 'Mo', isModerator: true };
    const member = { id: '2', displayName: 'Mel', isModerator: false };
    expect(toolsFor(tools, [moderator]).map((tool) => tool.name)).toContain('secret');
    expect(toolsFor(tools, [moderator, member]).map((tool) => tool.name)).not.toContain('secret');
    expect(toolsFor(tools, []).map((tool) => tool.name)).not.toContain('secret');
  });

  it('sends a JSON Schema tool that breaks the strict rules as non-strict', () => {
    const loose = { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'number' } }, required: ['q'] };
    const tool = fromJsonSchemaTool({
      name: 'search',
      description: 'MCP-style tool',
      inputSchema: loose,
      moderatorOnly: false,
      validate: (input) => ({ ok: true, value: input }),
      execute: async () => 'ok',
    });
    expect(tool.spec.function.strict).toBe(false);
    expect(isStrictCompatible({ ...loose, required: ['q', 'limit'], additionalProperties: false })).toBe(true);
    expect(
      isStrictCompatible({
        type: 'object',
        properties: { o: { type: 'object', properties: {} } },
        required: ['o'],
        additionalProperties: false,
      }),
    ).toBe(false);
  });
});
