/**
 * The `/tool` command's subcommands, generated from the tools' JSON Schemas: one subcommand per
 * tool, an option per argument (string, number, integer, boolean; enums as choices), and one JSON
 * option for an argument that is an object or an array. Discord's limits decide what fits; what
 * does not is left out, with the reason.
 */
import {
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandSubcommandOption,
  ApplicationCommandOptionType,
} from 'discord.js';
import type { RuntimeTool, ToolServer } from '../../agent/tool.ts';
import { errorMessage } from '../../agent/errors.ts';
import { truncateLine } from '../../text/truncate.ts';

const discordLimits = {
  subcommands: 25,
  options: 25,
  name: 32,
  description: 100,
  choices: 25,
  choiceValue: 100,
  commandCharacters: 8000,
} as const;
const discordName = /^[-_\p{Ll}\p{N}]{1,32}$/u;

type JsonSchema = {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
};

/** How a Discord option value becomes an argument again. */
type ArgumentKind = 'string' | 'number' | 'integer' | 'boolean' | 'json';

export interface ToolSubcommand {
  tool: RuntimeTool;
  option: APIApplicationCommandSubcommandOption;
  /** Each argument's option kind, by argument name. */
  kinds: Record<string, ArgumentKind>;
  /** Arguments that take null when left out (the others are omitted). */
  nullable: Set<string>;
}

/**
 * A tool server's subcommand (an MCP server): made from the configuration alone, so that a server
 * that comes and goes changes no command. `tool` is completed from the server's current tools,
 * `arguments` is their JSON, checked by the tool's own validator.
 */
interface ServerSubcommand {
  server: ToolServer;
  option: APIApplicationCommandSubcommandOption;
}

export interface ToolSubcommands {
  subcommands: ToolSubcommand[];
  servers: ServerSubcommand[];
  /** Tools that could not be offered as subcommands, and why. */
  leftOut: { tool: string; reason: string }[];
}

/** The characters Discord counts toward a command's 8,000: names, descriptions, choice names and values. */
function characters(option: {
  name: string;
  description?: string;
  options?: unknown[];
  choices?: { name: string; value: unknown }[];
}): number {
  const own = option.name.length + (option.description?.length ?? 0);
  const choices = (option.choices ?? []).reduce(
    (sum, choice) => sum + choice.name.length + String(choice.value).length,
    0,
  );
  const nested = (option.options ?? []).reduce((sum: number, child) => sum + characters(child as typeof option), 0);
  return own + choices + nested;
}

export function toolSubcommands(tools: readonly RuntimeTool[], servers: readonly ToolServer[] = []): ToolSubcommands {
  const subcommands: ToolSubcommand[] = [];
  const serverSubcommands: ServerSubcommand[] = [];
  const leftOut: { tool: string; reason: string }[] = [];
  // The /tool command's own name and description count too.
  let total = 'tool'.length + 60;
  const count = () => subcommands.length + serverSubcommands.length;
  const taken = (name: string) =>
    subcommands.some((other) => other.option.name === name) ||
    serverSubcommands.some((other) => other.option.name === name);
  for (const tool of tools) {
    if (count() >= discordLimits.subcommands) {
      leftOut.push({ tool: tool.name, reason: `Discord allows at most ${discordLimits.subcommands} subcommands` });
      continue;
    }
    const built = subcommandFor(tool);
    if (typeof built === 'string') {
      leftOut.push({ tool: tool.name, reason: built });
    } else if (taken(built.option.name)) {
      leftOut.push({ tool: tool.name, reason: `another tool already has the subcommand name "${built.option.name}"` });
    } else if (total + characters(built.option) > discordLimits.commandCharacters) {
      leftOut.push({
        tool: tool.name,
        reason: `the /tool command would pass Discord's ${discordLimits.commandCharacters} characters`,
      });
    } else {
      total += characters(built.option);
      subcommands.push(built);
    }
  }
  for (const server of servers) {
    const option = serverSubcommand(server);
    const label = `${server.name} (MCP server)`;
    if (count() >= discordLimits.subcommands)
      leftOut.push({ tool: label, reason: `Discord allows at most ${discordLimits.subcommands} subcommands` });
    else if (taken(option.name))
      leftOut.push({ tool: label, reason: `a tool already has the subcommand name "${option.name}"` });
    else if (total + characters(option) > discordLimits.commandCharacters)
      leftOut.push({
        tool: label,
        reason: `the /tool command would pass Discord's ${discordLimits.commandCharacters} characters`,
      });
    else {
      total += characters(option);
      serverSubcommands.push({ server, option });
    }
  }
  return { subcommands, servers: serverSubcommands, leftOut };
}

function serverSubcommand(server: ToolServer): APIApplicationCommandSubcommandOption {
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: server.name.toLowerCase(),
    description: shortDescription(
      `Run a tool of the ${server.name} MCP server${server.moderatorOnly ? ' (moderators)' : ''}.`,
    ),
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'tool',
        description: 'Which tool: start typing to see them.',
        required: true,
        autocomplete: true,
      },
      {
        type: ApplicationCommandOptionType.String,
        name: 'arguments',
        description: 'Its arguments as a JSON object, e.g. {"path": "notes.md"}.',
        required: false,
      },
    ],
  };
}

function subcommandFor(tool: RuntimeTool): ToolSubcommand | string {
  const name = tool.name.toLowerCase();
  if (!discordName.test(name))
    return `its name cannot be a Discord subcommand name (lower case, at most ${discordLimits.name} characters)`;
  const schema = tool.inputSchema as JsonSchema;
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length > discordLimits.options) return `it has more than ${discordLimits.options} arguments`;
  const required = new Set(schema.required ?? []);
  const options: APIApplicationCommandBasicOption[] = [];
  const kinds: Record<string, ArgumentKind> = {};
  const nullableArguments = new Set<string>();
  for (const [argument, property] of entries) {
    if (!discordName.test(argument)) return `its argument "${argument}" cannot be a Discord option name`;
    const { kind, schema: inner, nullable } = describeProperty(property);
    kinds[argument] = kind;
    if (nullable) nullableArguments.add(argument);
    const description = shortDescription(
      inner.description ?? property.description ?? (kind === 'json' ? `${argument}, as JSON` : argument),
    );
    // Nullable arguments may be left out: null is sent for them.
    const isRequired = required.has(argument) && !nullable;
    options.push(optionFor(argument, kind, inner, description, isRequired));
  }
  // Discord wants required options first.
  options.sort((a, b) => Number(b.required ?? false) - Number(a.required ?? false));
  return {
    tool,
    kinds,
    nullable: nullableArguments,
    option: {
      type: ApplicationCommandOptionType.Subcommand,
      name,
      description: shortDescription(tool.description),
      options,
    },
  };
}

function describeProperty(property: JsonSchema): { kind: ArgumentKind; schema: JsonSchema; nullable: boolean } {
  const variants = property.anyOf ?? [property];
  const nonNull = variants.filter((variant) => variant.type !== 'null');
  const types = nonNull.flatMap((variant) => ([] as string[]).concat(variant.type ?? []));
  const nullable = variants.length > nonNull.length || ([] as string[]).concat(property.type ?? []).includes('null');
  const scalar = types.filter((type) => type !== 'null');
  const inner: JsonSchema = {
    ...(nonNull[0] ?? property),
    description: property.description ?? nonNull[0]?.description,
  };
  if (scalar.length === 1 && ['string', 'number', 'integer', 'boolean'].includes(scalar[0]!))
    return { kind: scalar[0] as ArgumentKind, schema: inner, nullable };
  return { kind: 'json', schema: inner, nullable };
}

function optionFor(
  name: string,
  kind: ArgumentKind,
  schema: JsonSchema,
  description: string,
  required: boolean,
): APIApplicationCommandBasicOption {
  const base = { name, description, required };
  // Choices only when every value fits Discord; otherwise free text, which the tool's validator checks.
  const values = (schema.enum ?? []).map(String);
  const fits =
    values.length > 0 &&
    values.length <= discordLimits.choices &&
    values.every((value) => value.length >= 1 && value.length <= discordLimits.choiceValue);
  switch (kind) {
    case 'string':
      return fits
        ? {
            ...base,
            type: ApplicationCommandOptionType.String,
            choices: values.map((value) => ({ name: value, value })),
          }
        : { ...base, type: ApplicationCommandOptionType.String };
    case 'integer':
      return { ...base, type: ApplicationCommandOptionType.Integer, ...bounds(schema, true) };
    case 'number':
      return { ...base, type: ApplicationCommandOptionType.Number, ...bounds(schema, false) };
    case 'boolean':
      return { ...base, type: ApplicationCommandOptionType.Boolean };
    case 'json':
      return { ...base, type: ApplicationCommandOptionType.String };
  }
}

/** Bounds Discord accepts: integers for integer options, and within ±2^53 (zod's int() bounds are the ends of that). */
function bounds(schema: JsonSchema, integer: boolean): { min_value?: number; max_value?: number } {
  const usable = (value: number | undefined): value is number =>
    value !== undefined &&
    Number.isFinite(value) &&
    Math.abs(value) < Number.MAX_SAFE_INTEGER &&
    (!integer || Number.isInteger(value));
  const result: { min_value?: number; max_value?: number } = {};
  if (usable(schema.minimum)) result.min_value = schema.minimum;
  if (usable(schema.maximum)) result.max_value = schema.maximum;
  return result;
}

/** A description as Discord takes it: one line, 1 to 100 characters. */
function shortDescription(text: string): string {
  return truncateLine(text, discordLimits.description) || '-';
}

/**
 * The arguments a subcommand's options give, ready for the tool's own validator: JSON options are
 * parsed (a parse error is an issue); arguments left out are null where the schema allows it, else absent.
 */
export function argumentsFrom(
  subcommand: ToolSubcommand,
  values: ReadonlyMap<string, string | number | boolean>,
): { ok: true; args: Record<string, unknown> } | { ok: false; issues: string[] } {
  const args: Record<string, unknown> = {};
  const issues: string[] = [];
  for (const [argument, kind] of Object.entries(subcommand.kinds)) {
    const value = values.get(argument);
    if (value === undefined) {
      if (subcommand.nullable.has(argument)) args[argument] = null;
      continue;
    }
    if (kind !== 'json') {
      args[argument] = value;
      continue;
    }
    try {
      args[argument] = JSON.parse(String(value));
    } catch (error) {
      issues.push(`${argument}: not valid JSON (${errorMessage(error)})`);
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, args };
}
