import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import { everySchema, mapSchema, type SchemaNode } from '../../src/agent/schema-walk.ts';
import { isStrictCompatible } from '../../src/agent/strict-schema.ts';
import { toolsFromListing } from '../../src/mcp/mcp-tools.ts';

/** A schema with a subschema in each kind of place, and data and names that look like keywords. */
const schema = {
  type: 'object',
  properties: {
    // Property names that are keywords: still properties.
    not: { type: 'string' },
    items: { type: 'array', items: { type: 'number' } },
    choice: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    pair: { type: 'array', items: [{ type: 'string' }, { $ref: '#/$defs/point' }] },
    // Data that looks like schemas: left alone.
    kind: {
      enum: [{ type: 'array' }, 'plain'],
      default: { type: 'object' },
      const: { not: {} },
      examples: [{ oneOf: [] }],
    },
  },
  $defs: { point: { type: 'object', properties: { x: { type: 'number' } } } },
  additionalProperties: { type: 'boolean' },
};

const tag = (node: SchemaNode): SchemaNode => ({ ...node, seen: true });

describe('schema walking', () => {
  it('mapSchema rebuilds every subschema, wherever it sits, and nothing else', () => {
    const mapped = mapSchema(schema, tag) as Record<string, any>;
    expect(mapped.seen).toBe(true);
    expect(mapped.properties.seen).toBeUndefined();
    expect(mapped.properties.not).toEqual({ type: 'string', seen: true });
    expect(mapped.properties.items.items).toEqual({ type: 'number', seen: true });
    expect(mapped.properties.choice.anyOf).toEqual([
      { type: 'string', seen: true },
      { type: 'null', seen: true },
    ]);
    expect(mapped.properties.pair.items[1]).toEqual({ $ref: '#/$defs/point', seen: true });
    expect(mapped.$defs.point.properties.x).toEqual({ type: 'number', seen: true });
    expect(mapped.$defs.seen).toBeUndefined();
    expect(mapped.additionalProperties).toEqual({ type: 'boolean', seen: true });
    const { seen: _seen, ...kind } = mapped.properties.kind;
    expect(kind).toEqual(schema.properties.kind);
    // The input is not changed.
    expect(JSON.stringify(schema)).not.toContain('seen');
  });

  it('everySchema tests the same schemas mapSchema rebuilds', () => {
    const visited: SchemaNode[] = [];
    everySchema(schema, (node) => visited.push(node) > 0);
    let rebuilt = 0;
    mapSchema(schema, (node) => ((rebuilt += 1), node));
    expect(visited).toHaveLength(rebuilt);
    expect(visited).toHaveLength(14);
    expect(everySchema(schema, (node) => node.type !== 'number')).toBe(false);
  });
});

// Each pass that walks schemas used to look into data too, and rewrite or judge it as a schema.
describe('the passes that walk tool schemas leave data alone', () => {
  it('an MCP tool whose enum holds an object that looks like an array schema still accepts it', () => {
    const [tool] = toolsFromListing(
      { name: 'srv', moderatorOnly: false },
      [
        {
          name: 'pick',
          inputSchema: {
            type: 'object',
            properties: { shape: { enum: [{ type: 'array' }] }, list: { type: 'array' } },
          },
        },
      ],
      async () => ({ content: [] }),
    ).tools;
    expect(tool!.inputSchema).toEqual({
      type: 'object',
      properties: { shape: { enum: [{ type: 'array' }] }, list: { type: 'array', items: {} } },
    });
    expect(tool!.validate({ shape: { type: 'array' }, list: [] })).toMatchObject({ ok: true });
  });

  it('a zod tool whose default is an object keeps that default as it is', () => {
    const tool = fromZodTool({
      name: 'configure',
      description: 'Takes options.',
      parameters: z.object({ options: z.object({ type: z.literal('object') }).default({ type: 'object' }) }),
      execute: () => 'ok',
    });
    const options = (tool.inputSchema.properties as Record<string, SchemaNode>).options!;
    expect(options.default).toEqual({ type: 'object' });
    expect(options.additionalProperties).toBe(false);
  });

  it('an enum value that spells an unsupported keyword does not make a schema non-strict', () => {
    const strict = {
      type: 'object',
      properties: { mode: { enum: [{ not: 1 }] } },
      required: ['mode'],
      additionalProperties: false,
    };
    expect(isStrictCompatible(strict)).toBe(true);
    expect(isStrictCompatible({ ...strict, properties: { mode: { not: { type: 'string' } } } })).toBe(false);
  });
});
