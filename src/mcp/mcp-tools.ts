/**
 * An MCP server's tools as agent tools: named `<server>__<tool>` within the model's 64 characters,
 * arguments validated against the server's JSON Schema (ajv), sent non-strict where the schema does
 * not meet strict rules; their results are made into text and images by mcp-tool-results.ts.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fromJsonSchemaTool } from '../agent/runtime-tool.ts';
import { mapSchema } from '../agent/schema-walk.ts';
import type { RuntimeTool, ToolContext, ValidationResult } from '../agent/tool.ts';
import { errorMessage } from '../agent/errors.ts';
import { truncate } from '../text/truncate.ts';
import { type ReadResource, readResourceTool, readResourceToolName } from './mcp-resources.ts';
import { type CallResult, toolResult } from './mcp-tool-results.ts';

/** A tool as `tools/list` gives it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /** "required": the tool runs only as a task (`tools/call` with `task`), which the bot does not do yet. */
  execution?: { taskSupport?: string };
  /** Hints of what the tool does; the server's word, not a guarantee. */
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

/** Which tools wait for the asker's confirmation, as MCP_CONFIG's `confirm` and `confirmTools` say. */
type ConfirmRule = 'destructive' | 'always' | 'never';

/**
 * Whether a call of the tool waits for the confirmation of the person who asked. By default, when
 * it may change things as the spec reads its annotations: `readOnlyHint` defaults to false and
 * `destructiveHint` to true, so a tool without annotations counts as destructive, and one that
 * only adds (`destructiveHint: false`) or only reads (`readOnlyHint: true`) does not.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool-annotations (ToolAnnotations in schema.ts)
 */
export function needsConfirmation(
  server: { confirm?: ConfirmRule; confirmTools?: Record<string, ConfirmRule> },
  tool: ListedTool,
): boolean {
  const rule = server.confirmTools?.[tool.name] ?? server.confirm ?? 'destructive';
  if (rule !== 'destructive') return rule === 'always';
  return tool.annotations?.readOnlyHint !== true && tool.annotations?.destructiveHint !== false;
}

/** How a tool reaches its server; the connection decides whether the server is up. */
export type CallTool = (tool: string, args: Record<string, unknown>, context: ToolContext) => Promise<CallResult>;

const maxNameLength = 64;
/** OpenAI refuses a whole request whose function descriptions pass this length. */
const maxDescriptionLength = 1024;
const separator = '__';

/** Every page of `tools/list`. */
export async function listAllTools(client: Client, options: { timeout: number }): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    tools.push(...(page.tools as ListedTool[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/**
 * Validators for one listing. A fresh pair each time, so that a server listed again (or two servers)
 * reusing a schema `$id` do not clash, and old schemas are not kept. `strict: false`: servers write
 * keywords ajv does not know (formats, examples, vendor extensions), which must not stop the tool.
 */
function validators() {
  const options = { allErrors: true, strict: false, validateFormats: false };
  return { draft7: new Ajv(options), draft2020: new Ajv2020(options) };
}

/**
 * The agent-tool name of an MCP server's tool: `<server>__<tool>`, characters outside
 * `[a-zA-Z0-9_-]` replaced by `_`; a name past 64 characters is cut and given a short hash of the
 * original, so that two long names stay apart.
 */
export function agentToolName(server: string, tool: string): string {
  const name = `${server}${separator}${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (name.length <= maxNameLength) return name;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, maxNameLength - hash.length - 1)}_${hash}`;
}

/**
 * The runtime form of a server's listed tools. A tool whose schema ajv cannot compile, or whose name
 * clashes with another, is left out and reported in `leftOut`.
 */
export function toolsFromListing(
  server: Parameters<typeof needsConfirmation>[0] & { name: string; moderatorOnly: boolean },
  listed: readonly ListedTool[],
  call: CallTool,
  /** How the server's resources are read, when it declares any: `<server>__read_resource` is offered. */
  readResource?: ReadResource,
): { tools: RuntimeTool[]; leftOut: { tool: string; reason: string }[] } {
  const tools: RuntimeTool[] = [];
  const leftOut: { tool: string; reason: string }[] = [];
  const names = new Set<string>();
  const readTool = readResource ? readToolName(server.name, listed, leftOut) : null;
  const { draft7, draft2020 } = validators();
  for (const entry of listed) {
    const name = agentToolName(server.name, entry.name);
    if (entry.execution?.taskSupport === 'required') {
      // Such a tool refuses every plain call (-32600): offering it would only waste the model's turns.
      // https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
      leftOut.push({
        tool: entry.name,
        reason: 'it runs only as a task (execution.taskSupport "required"), and the bot does not run tasks yet',
      });
      continue;
    }
    if (names.has(name)) {
      leftOut.push({ tool: entry.name, reason: `its name becomes "${name}", as another tool's does` });
      continue;
    }
    const inputSchema = modelSchema(entry.inputSchema);
    let validate: ValidateFunction;
    try {
      validate = (isDraft2020(entry.inputSchema) ? draft2020 : draft7).compile(inputSchema);
    } catch (error) {
      leftOut.push({ tool: entry.name, reason: `its input schema is not valid JSON Schema (${errorMessage(error)})` });
      continue;
    }
    names.add(name);
    tools.push(
      fromJsonSchemaTool({
        name,
        description: truncate(
          (entry.description ?? '').trim() || `The "${entry.name}" tool of the ${server.name} MCP server.`,
          maxDescriptionLength,
        ),
        inputSchema,
        moderatorOnly: server.moderatorOnly,
        needsConfirmation: needsConfirmation(server, entry),
        validate: (input) => validation(validate, input),
        execute: async (args, context) =>
          toolResult(
            server.name,
            entry.name,
            await call(entry.name, args as Record<string, unknown>, context),
            readTool,
          ),
      }),
    );
  }
  if (readResource && readTool) tools.push(readResourceTool(server, readTool, readResource));
  return { tools, leftOut };
}

/**
 * The name of the bot's `read_resource` for the server; null when a tool of the server's own has it
 * (the server's wins, and its links then name no tool to read them).
 */
function readToolName(
  server: string,
  listed: readonly ListedTool[],
  leftOut: { tool: string; reason: string }[],
): string | null {
  const name = agentToolName(server, readResourceToolName);
  if (!listed.some((entry) => agentToolName(server, entry.name) === name)) return name;
  leftOut.push({
    tool: readResourceToolName,
    reason: `the server has a tool named so (the bot's reads its resources)`,
  });
  return null;
}

/**
 * The schema as sent to the model: an object at the root, without `$schema`, and `items: {}` on
 * arrays that lack it (OpenAI refuses the whole request over one such array; `{}` allows what
 * leaving it out did).
 */
function modelSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return withArrayItems({
    ...rest,
    type: 'object',
    properties: (rest.properties as object | undefined) ?? {},
  }) as Record<string, unknown>;
}

function withArrayItems(schema: unknown): unknown {
  return mapSchema(schema, (node) => {
    const types = ([] as unknown[]).concat(node.type ?? []);
    return types.includes('array') && !('items' in node) && !('prefixItems' in node) ? { ...node, items: {} } : node;
  });
}

function isDraft2020(schema: Record<string, unknown>): boolean {
  return typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
}

function validation(validate: ValidateFunction, input: unknown): ValidationResult {
  if (validate(input)) return { ok: true, value: input };
  return { ok: false, issues: (validate.errors ?? []).map(validationIssue) };
}

/** One of ajv's validation errors as an issue line: where in the input ("a.b"), then what is wrong. */
function validationIssue(error: ErrorObject): string {
  const at = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const detail =
    error.keyword === 'additionalProperties'
      ? `unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`
      : (error.message ?? error.keyword);
  return at ? `${at}: ${detail}` : detail;
}
