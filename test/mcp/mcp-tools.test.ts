import { describe, expect, it } from 'vitest';
import type { RuntimeTool, ToolServer } from '../../src/agent/tool.ts';
import { currentTools, maxOfferedTools } from '../../src/agent/tool-registry.ts';
import { agentToolName, type ListedTool, toolsFromListing } from '../../src/mcp/mcp-tools.ts';

const server = { name: 'srv', moderatorOnly: false };
const never = async () => ({ content: [] });
const listing = (tools: ListedTool[]) => toolsFromListing(server, tools, never);

describe('MCP tools as agent tools', () => {
  it('offers <server>__read_resource when the server has resources, unless a tool of its own is named so', async () => {
    const read = async () => ({ contents: [{ uri: 'x://a', text: 'hello' }] });
    const echo: ListedTool = { name: 'echo', inputSchema: { type: 'object' } };
    expect(toolsFromListing(server, [echo], never).tools.map((tool) => tool.name)).toEqual(['srv__echo']);
    const offered = toolsFromListing(server, [echo], never, read).tools.at(-1)!;
    expect(offered).toMatchObject({ name: 'srv__read_resource', needsConfirmation: false });
    expect(await offered.execute({ uri: 'x://a' }, {} as never)).toBe('[resource x://a]\nhello');

    const own = toolsFromListing(server, [{ ...echo, name: 'read_resource' }], never, read);
    expect(own.tools.map((tool) => tool.name)).toEqual(['srv__read_resource']);
    expect(own.tools[0]!.needsConfirmation).toBe(true); // the server's own, without annotations
    expect(own.leftOut).toEqual([{ tool: 'read_resource', reason: expect.stringContaining('the server has a tool') }]);
  });

  it('asks for confirmation before a tool the annotations do not clear (read as the spec defaults them), unless the config says otherwise', () => {
    const tool = (name: string, annotations?: ListedTool['annotations']): ListedTool => ({
      name,
      inputSchema: { type: 'object' },
      ...(annotations ? { annotations } : {}),
    });
    const tools = [
      tool('bare'),
      tool('reads', { readOnlyHint: true }),
      tool('adds', { readOnlyHint: false, destructiveHint: false }),
      tool('writes', { readOnlyHint: false, destructiveHint: true }),
      tool('says-nothing-of-reading', { destructiveHint: true }),
    ];
    const asked = (config: Parameters<typeof toolsFromListing>[0]) =>
      toolsFromListing(config, tools, never).tools.map((each) => [each.name, each.needsConfirmation]);
    expect(asked(server)).toEqual([
      ['srv__bare', true],
      ['srv__reads', false],
      ['srv__adds', false],
      ['srv__writes', true],
      ['srv__says-nothing-of-reading', true],
    ]);
    expect(asked({ ...server, confirm: 'never', confirmTools: { writes: 'always' } }).filter(([, yes]) => yes)).toEqual(
      [['srv__writes', true]],
    );
    expect(asked({ ...server, confirm: 'always' }).every(([, yes]) => yes)).toBe(true);
  });

  it('names them <server>__<tool> in the model’s alphabet, cutting long ones with a hash that keeps them apart', () => {
    expect(agentToolName('files', 'read_file')).toBe('files__read_file');
    expect(agentToolName('files', 'read.file v2')).toBe('files__read_file_v2');
    const a = agentToolName('files', `${'x'.repeat(70)}a`);
    const b = agentToolName('files', `${'x'.repeat(70)}b`);
    expect([a.length, b.length]).toEqual([64, 64]);
    expect(a).not.toBe(b);
  });

  it('leaves out a tool whose name clashes after cleaning, and one whose schema is not JSON Schema', () => {
    const { tools, leftOut } = listing([
      { name: 'read.file', inputSchema: { type: 'object' } },
      { name: 'read_file', inputSchema: { type: 'object' } },
      { name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } },
    ]);
    expect(tools.map((tool) => tool.name)).toEqual(['srv__read_file']);
    expect(leftOut.map((entry) => entry.tool)).toEqual(['read_file', 'broken']);
  });

  it('keeps a tool whose schema has an $id when the server is listed again', () => {
    const tool: ListedTool = {
      name: 'find',
      inputSchema: { $id: 'https://example.com/find.json', type: 'object', properties: { q: { type: 'string' } } },
    };
    expect(listing([tool]).tools).toHaveLength(1);
    const again = listing([tool]);
    expect(again).toMatchObject({ tools: [{ name: 'srv__find' }], leftOut: [] });
    expect(again.tools[0]!.validate({ q: 1 })).toEqual({ ok: false, issues: ['q: must be string'] });
  });

  it('sends what OpenAI accepts: descriptions cut to 1,024 characters, and items on arrays that lack them', () => {
    const [tool] = listing([
      {
        name: 'tag',
        description: 'd'.repeat(5_000),
        inputSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: {
            tags: { type: 'array' },
            nested: { type: 'object', properties: { ids: { type: ['array', 'null'] } } },
          },
        },
      },
    ]).tools;
    expect(tool!.spec.function.description).toHaveLength(1024);
    expect(tool!.inputSchema).toEqual({
      type: 'object',
      properties: {
        tags: { type: 'array', items: {} },
        nested: { type: 'object', properties: { ids: { type: ['array', 'null'], items: {} } } },
      },
    });
    expect(tool!.validate({ tags: [1, 'a'], nested: { ids: null } })).toMatchObject({ ok: true });
  });

  it('offers each name once and at most the 127 tools a request can carry beside final_answer', () => {
    const fake = (name: string) => ({ name }) as RuntimeTool;
    const many: ToolServer = {
      name: 'big',
      moderatorOnly: false,
      status: () => ({ state: 'up' }),
      tools: () => Array.from({ length: 300 }, (_, index) => fake(`big__t${index}`)),
    };
    const twin: ToolServer = { ...many, tools: () => [fake('calculator')] };
    const offered = currentTools([fake('calculator')], [twin, many]);
    expect(offered).toHaveLength(maxOfferedTools);
    expect(offered.filter((tool) => tool.name === 'calculator')).toHaveLength(1);
  });
});
