import { ApplicationCommandOptionType } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromJsonSchemaTool } from '../../../src/agent/runtime-tool.ts';
import { buildToolRegistry } from '../../../src/agent/tool-registry.ts';
import { commandsDiffer } from '../../../src/discord/interactions/command-sync.ts';
import { argumentsFrom, toolSubcommands } from '../../../src/discord/interactions/tool-options.ts';
import { defineTool } from '../../../tools/define-tool.ts';
import { builtInTools } from '../../../tools/index.ts';

const sample = defineTool({
  name: 'sample',
  description: 'Every kind of argument.',
  parameters: z.object({
    text: z.string().describe('Some text.'),
    count: z.number().int().min(1).max(10).describe('How many.'),
    ratio: z.number().describe('A ratio.'),
    loud: z.boolean().nullable().describe('Shout?'),
    mode: z.enum(['fast', 'slow']).describe('Which mode.'),
    filters: z.array(z.string()).describe('Filters, as JSON.'),
  }),
  execute: () => 'ok',
});

describe('/tool options from tool schemas', () => {
  it('makes one subcommand per tool with typed options, choices, bounds and descriptions', () => {
    const { subcommands, leftOut } = toolSubcommands(buildToolRegistry([sample, ...builtInTools]));
    expect(leftOut).toEqual([]);
    expect(subcommands.map((subcommand) => subcommand.option.name)).toEqual([
      'sample',
      'calculator',
      'current_time',
      'fetch_url',
    ]);
    expect(subcommands[0]!.option.options).toEqual([
      { name: 'text', description: 'Some text.', required: true, type: ApplicationCommandOptionType.String },
      {
        name: 'count',
        description: 'How many.',
        required: true,
        type: ApplicationCommandOptionType.Integer,
        min_value: 1,
        max_value: 10,
      },
      { name: 'ratio', description: 'A ratio.', required: true, type: ApplicationCommandOptionType.Number },
      {
        name: 'mode',
        description: 'Which mode.',
        required: true,
        type: ApplicationCommandOptionType.String,
        choices: [
          { name: 'fast', value: 'fast' },
          { name: 'slow', value: 'slow' },
        ],
      },
      { name: 'filters', description: 'Filters, as JSON.', required: true, type: ApplicationCommandOptionType.String },
      { name: 'loud', description: 'Shout?', required: false, type: ApplicationCommandOptionType.Boolean },
    ]);
  });

  it('turns option values back into arguments the same schema checks', () => {
    const [subcommand] = toolSubcommands(buildToolRegistry([sample])).subcommands;
    const values = new Map<string, string | number | boolean>([
      ['text', 'hi'],
      ['count', 3],
      ['ratio', 0.5],
      ['mode', 'fast'],
      ['filters', '["a","b"]'],
    ]);
    const parsed = argumentsFrom(subcommand!, values);
    expect(parsed).toEqual({
      ok: true,
      args: { text: 'hi', count: 3, ratio: 0.5, loud: null, mode: 'fast', filters: ['a', 'b'] },
    });
    expect(parsed.ok && subcommand!.tool.validate(parsed.args).ok).toBe(true);
    expect(argumentsFrom(subcommand!, new Map([['filters', '[oops']]))).toMatchObject({
      ok: false,
      issues: [expect.stringMatching(/^filters: not valid JSON/)],
    });
  });

  it("keeps to Discord's limits, leaving out with a reason what does not fit", () => {
    const many = Array.from({ length: 27 }, (_, index) =>
      fromJsonSchemaTool({
        name: `tool_${index}`,
        description: 'x',
        inputSchema: { type: 'object', properties: {} },
        moderatorOnly: false,
        validate: (input) => ({ ok: true, value: input }),
        execute: async () => 'ok',
      }),
    );
    const wide = fromJsonSchemaTool({
      name: 'Wide',
      description: 'd'.repeat(300),
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 26 }, (_, index) => [`a${index}`, { type: 'string' }])),
      },
      moderatorOnly: false,
      validate: (input) => ({ ok: true, value: input }),
      execute: async () => 'ok',
    });
    const { subcommands, leftOut } = toolSubcommands([wide, ...many]);
    expect(subcommands).toHaveLength(25);
    expect(leftOut).toEqual([
      { tool: 'Wide', reason: 'it has more than 25 arguments' },
      { tool: 'tool_25', reason: 'Discord allows at most 25 subcommands' },
      { tool: 'tool_26', reason: 'Discord allows at most 25 subcommands' },
    ]);
  });
});

describe('command registration diff', () => {
  it('ignores the defaults Discord adds, and sees a changed description', () => {
    const ours = [{ name: 'help', description: 'Help.', contexts: [0], integration_types: [0] }];
    const discords = [
      {
        id: '1',
        application_id: '2',
        version: '3',
        type: 1,
        name: 'help',
        description: 'Help.',
        default_member_permissions: null,
        contexts: [0],
        integration_types: [0],
        nsfw: false,
        description_localizations: null,
      },
    ];
    expect(commandsDiffer(discords, ours as never)).toBe(false);
    expect(commandsDiffer(discords, [{ ...ours[0]!, description: 'Other.' }] as never)).toBe(true);
  });
});

describe('/tool options that Discord would refuse', () => {
  const loose = (name: string, properties: Record<string, unknown>, description = 'x') =>
    fromJsonSchemaTool({
      name,
      description,
      inputSchema: { type: 'object', properties },
      moderatorOnly: false,
      validate: (input) => ({ ok: true, value: input }),
      execute: async () => 'ok',
    });

  it('drops choices and bounds Discord cannot take, cuts descriptions, and leaves out duplicates and what passes 8,000 characters', () => {
    const odd = loose(
      'odd',
      {
        empty_choice: { type: 'string', enum: ['', 'x'] },
        many_choices: { type: 'string', enum: Array.from({ length: 30 }, (_, index) => `v${index}`) },
        half: { type: 'integer', minimum: 0.5, maximum: 10 },
      },
      'd'.repeat(300),
    );
    const huge = Array.from({ length: 6 }, (_, index) =>
      loose(
        `huge_${index}`,
        Object.fromEntries(
          Array.from({ length: 20 }, (_, arg) => [`a${arg}`, { type: 'string', description: 'e'.repeat(100) }]),
        ),
      ),
    );
    const { subcommands, leftOut } = toolSubcommands([odd, loose('Odd', {}), ...huge]);

    const options = subcommands[0]!.option.options!;
    expect(subcommands[0]!.option.description).toHaveLength(100);
    expect(options.find((option) => option.name === 'empty_choice')).not.toHaveProperty('choices');
    expect(options.find((option) => option.name === 'many_choices')).not.toHaveProperty('choices');
    expect(options.find((option) => option.name === 'half')).toMatchObject({ max_value: 10 });
    expect(options.find((option) => option.name === 'half')).not.toHaveProperty('min_value');
    expect(leftOut[0]).toEqual({ tool: 'Odd', reason: 'another tool already has the subcommand name "odd"' });
    expect(
      leftOut.slice(1).every((entry) => entry.reason === "the /tool command would pass Discord's 8000 characters"),
    ).toBe(true);
    expect(subcommands.length + leftOut.length).toBe(8);
  });
});
