/**
 * The `MCP_CONFIG` file: MCP servers in the common `mcpServers` format, as Claude Desktop and
 * other clients write it. `{ "command", "args", "env", "cwd" }` starts a server over stdio;
 * `{ "url", "headers" }` reaches an HTTP one (streamable HTTP, or the older HTTP+SSE). The `type`
 * and `disabled` that Claude Code's `.mcp.json`, Cursor and VS Code write are read too
 * (https://docs.anthropic.com/en/docs/claude-code/mcp), and VS Code's `servers` for `mcpServers`.
 * `moderatorOnly`, `scope` (with `maxSessions`, `idleMinutes`) and `confirm` (`confirmTools`) are ours.
 */
import { z } from 'zod';
import { credentialsProblem, type Environment, withoutCredentials } from '../settings/setting-fields.ts';
import { expandVariables, type SecretPlaces } from '../text/expand-variables.ts';

/** Server names become `/tool` subcommands (lower case, at most 32 characters) and tool-name prefixes. */
const serverName = /^[A-Za-z0-9_-]{1,32}$/;

const common = {
  /** Its tools are offered to the model, and run with `/tool`, only for moderators. */
  moderatorOnly: z.boolean().default(false),
  /**
   * Who shares one session of the server: everyone (`global`), each Discord server (`server`), or
   * each conversation (`conversation`). A scoped session starts at its first tool call.
   */
  scope: z.enum(['global', 'server', 'conversation']).default('global'),
  /** The most sessions of a scoped server running at once; past it a call is refused. */
  maxSessions: z.int().min(1).max(1000).default(20),
  /** A scoped session unused this long is stopped (its working directory stays). */
  idleMinutes: z.number().positive().max(1440).default(15),
  /**
   * Which of its tools run only once the person who asked confirms: `destructive` (by the tools'
   * annotations, as the MCP spec defaults them; when absent), `always` or `never`; `confirmTools`
   * overrides it for a tool, by the server's name for it.
   */
  confirm: z.enum(['destructive', 'always', 'never']).optional(),
  confirmTools: z.record(z.string(), z.enum(['destructive', 'always', 'never'])).optional(),
  /** `true` skips the server (checked before the rest of the entry); `false` is accepted. */
  disabled: z.literal(false).optional(),
};

/** The `type` other clients write: "http" and "streamable-http" are the same transport. */
const stdioType = z.literal('stdio').optional();
const httpType = z.enum(['http', 'streamable-http', 'sse']).optional();

const stdioServer = z
  .object({
    command: z.string().min(1, 'command must not be empty'),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    type: stdioType,
    ...common,
  })
  .strict();

const httpServer = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' })
      .refine(withoutCredentials, `url ${credentialsProblem}: a token goes in headers`),
    headers: z.record(z.string(), z.string()).default({}),
    type: httpType,
    ...common,
  })
  .strict();

const fileSchema = z.object({
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  /** VS Code's name for `mcpServers` (.vscode/mcp.json): https://code.visualstudio.com/docs/copilot/reference/mcp-configuration */
  servers: z.record(z.string(), z.unknown()).optional(),
  /** VS Code's values it asks for when it starts a server: an unattended bot cannot. */
  inputs: z.array(z.unknown()).optional(),
});

/** What an operator is told of VS Code's prompts for values (`inputs`, `${input:…}`). */
const noInputs =
  "VS Code asks for such values when it starts a server; the bot runs unattended: put the value in the environment or .env and write ${NAME} in the server's env or headers";

/** The fields of an entry that the bot reads itself, rather than pass on to the server. */
type OwnFields = 'type' | 'disabled' | 'scope' | 'maxSessions' | 'idleMinutes';

/** A server with one session per Discord server or per conversation (absent: one for everyone). */
export interface McpScoping {
  scope: 'server' | 'conversation';
  maxSessions: number;
  idleMinutes: number;
}

export type StdioServerConfig = { name: string; transport: 'stdio'; scoping?: McpScoping } & Omit<
  z.output<typeof stdioServer>,
  OwnFields
>;
/**
 * `sse`: the server speaks only the older HTTP+SSE transport (`type: "sse"`); otherwise streamable
 * HTTP is tried first, and SSE after a 4xx.
 */
export type HttpServerConfig = { name: string; transport: 'http'; sse: boolean; scoping?: McpScoping } & Omit<
  z.output<typeof httpServer>,
  OwnFields
>;
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/**
 * A server's secrets are the values of its `env` and `headers`: its command, arguments and URL are
 * logged, and a server may echo them to the model.
 */
const secretPlaces: SecretPlaces = {
  holdsSecret: (path) => path.length === 2 && (path[0] === 'env' || path[0] === 'headers'),
  described: "a server's env and headers",
};

/**
 * The servers the file describes, or every problem found in it. `${NAME}` in a value of a server's
 * `env` or `headers` is the variable NAME of `environment`, so that its token need not sit in the
 * file; `secrets` are the values so read, for the logger to mask.
 */
export function parseMcpConfig(
  text: string,
  environment: Environment = {},
): { ok: true; servers: McpServerConfig[]; secrets: string[] } | { ok: false; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`is not valid JSON (${(error as Error).message})`] };
  }
  const file = fileSchema.safeParse(json);
  const entries = file.success ? (file.data.mcpServers ?? file.data.servers) : undefined;
  if (!file.success || entries === undefined || (file.data.mcpServers && file.data.servers))
    return {
      ok: false,
      problems: [
        'must be an object with "mcpServers" (or "servers", as VS Code writes it; not both): { "name": { "command": … } or { "url": … } }',
      ],
    };

  const problems: string[] = [];
  if ((file.data.inputs ?? []).length > 0) problems.push(`"inputs" is not supported: ${noInputs}`);
  const servers: McpServerConfig[] = [];
  const secrets: string[] = [];
  const lowerNames = new Set<string>();
  for (const [name, entry] of Object.entries(entries)) {
    // A server switched off is not read further: its entry may be unfinished, as clients let it be.
    if (isObject(entry) && entry.disabled === true) continue;
    if (!serverName.test(name) || name.includes('__')) {
      problems.push(
        `server "${name}": names may use letters, digits, "-" and "_" (not "__"), at most 32 characters (they prefix its tools' names)`,
      );
      continue;
    }
    if (lowerNames.has(name.toLowerCase())) {
      problems.push(
        `server "${name}": another server has the same name in lower case (names become /tool subcommands)`,
      );
      continue;
    }
    lowerNames.add(name.toLowerCase());
    if (JSON.stringify(entry).includes('${input:')) {
      problems.push(`server "${name}": \${input:…} is not supported: ${noInputs}`);
      continue;
    }
    const isHttp = isObject(entry) && (entry.type === undefined ? 'url' in entry : entry.type !== 'stdio');
    const expanded = expandVariables(withScopeVariablesKept(entry), environment, secretPlaces);
    if (expanded.problems.length > 0) {
      problems.push(...expanded.problems.map((problem) => `server "${name}": ${problem}`));
      continue;
    }
    secrets.push(...expanded.secrets);
    const parsed = (isHttp ? httpServer : stdioServer).safeParse(expanded.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const at = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
        problems.push(
          `server "${name}": ${at}${issue.code === 'unrecognized_keys' ? `unknown ${issue.message.replace(/^Unrecognized keys?: /, 'field ')}` : issue.message}`,
        );
      }
      continue;
    }
    servers.push(serverConfig(name, parsed.data));
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, servers, secrets };
}

/**
 * In a scoped server's `args` and `env`, `${MCP_SCOPE_ID}` and `${MCP_SCOPE_DIR}` name the session's
 * scope and working directory: they are not read from the environment, but kept (as markers no
 * file holds) for each session to fill in (`sessionConfig` in scoped-server.ts).
 */
function withScopeVariablesKept(entry: unknown): unknown {
  if (!isObject(entry) || entry.scope === undefined || entry.scope === 'global') return entry;
  const keep = (value: unknown) =>
    typeof value === 'string'
      ? value.replace(/\$\{(MCP_SCOPE_ID|MCP_SCOPE_DIR)\}/g, (_whole, name: string) => scopeMarker(name))
      : value;
  // Only the fields the entry has: a `url` server has neither, and its strict schema refuses any it lacks.
  return {
    ...entry,
    ...(Array.isArray(entry.args) ? { args: entry.args.map(keep) } : {}),
    ...(isObject(entry.env)
      ? { env: Object.fromEntries(Object.entries(entry.env).map(([key, value]) => [key, keep(value)])) }
      : {}),
  };
}

/** The marker a scoped session replaces with its variable's value. */
export function scopeMarker(name: string): string {
  return `\u0000${name}\u0000`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function serverConfig(
  name: string,
  entry: z.output<typeof httpServer> | z.output<typeof stdioServer>,
): McpServerConfig {
  const { scope, maxSessions, idleMinutes, ...unscoped } = entry;
  const scoping = scope === 'global' ? {} : { scoping: { scope, maxSessions, idleMinutes } };
  if ('url' in unscoped) {
    const { type, disabled: _disabled, ...rest } = unscoped;
    return { name, transport: 'http', sse: type === 'sse', ...rest, ...scoping };
  }
  const { type: _type, disabled: _disabled, ...rest } = unscoped;
  return { name, transport: 'stdio', ...rest, ...scoping };
}
