import type { Logger } from './logger.ts';
import type { FunctionSpec } from './model-client.ts';

/** Who asked for the run or the tool call. */
export interface Requester {
  id: string;
  displayName: string;
  /** Checked against Discord permissions by the caller, never taken from the model. */
  isModerator: boolean;
}

/** Where a conversation takes place, and who is in it; the same for every tool call of a run. */
export interface ConversationContext {
  conversationId: string;
  /** Null outside a Discord server (the terminal). */
  guildId: string | null;
  channelId: string | null;
  requester: Requester;
  logger: Logger;
}

/** What a tool receives besides its arguments. */
export interface ToolContext extends ConversationContext {
  /** Fires when the run is stopped or the tool's time limit passes. */
  signal: AbortSignal;
  /**
   * Records a URL this call's result shows the model as checked (a search result, a page fetched):
   * `final_answer`'s sources may cite it. Kept only when the call succeeds; absent outside a run.
   */
  noteSource?(url: string): void;
}

export type ValidationResult = { ok: true; value: unknown } | { ok: false; issues: string[] };

/**
 * The one runtime form of every tool, whether written in `tools/` with zod or brought by an MCP
 * server with a JSON Schema. Built once at start-up; the model's function spec, argument
 * validation and the `/tool` command's options all come from it.
 */
export interface RuntimeTool {
  name: string;
  description: string;
  /** The JSON Schema of the arguments, as sent to the model. */
  inputSchema: Record<string, unknown>;
  /** The spec sent to the model, built once from the fields above. */
  spec: FunctionSpec;
  moderatorOnly: boolean;
  validate(input: unknown): ValidationResult;
  execute(args: unknown, context: ToolContext): Promise<unknown>;
}

export type ToolServerStatus = { state: 'up' } | { state: 'starting' } | { state: 'down'; reason: string };

/**
 * A source of tools that comes and goes (an MCP server): its tools are listed anew for each run,
 * and answer "unavailable" while it is down.
 */
export interface ToolServer {
  readonly name: string;
  readonly moderatorOnly: boolean;
  status(): ToolServerStatus;
  tools(): readonly RuntimeTool[];
}

/** A server's status in a few words, for people. */
export function describeStatus(status: ToolServerStatus): string {
  if (status.state === 'up') return 'running';
  if (status.state === 'starting') return 'starting';
  return `down: ${status.reason}`;
}
