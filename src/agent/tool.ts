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
  /**
   * Asks the requester to confirm a call of a tool that `needsConfirmation`, before it runs (the
   * Discord layer posts Confirm / Cancel buttons; the terminal asks y/N; `/tool`, where the person
   * named the call themselves, confirms it). Absent, such a call is never run: nobody can be asked.
   */
  confirmTool?: ConfirmTool;
  /**
   * Asks the requester for input a tool needs while it runs (an MCP server's elicitation): a form
   * or a link, shown to them alone. Absent (the terminal, `/tool`), such a request is declined.
   */
  askInput?: AskInput;
}

/** How a call that needed confirmation was decided, and by whom (null: nobody answered). */
export interface ToolConfirmationOutcome {
  decision: 'confirmed' | 'cancelled' | 'timed-out';
  by: { id: string; displayName: string } | null;
}

/** A call waiting for the requester's word. */
export interface ToolConfirmationRequest {
  tool: string;
  /** The validated arguments, as JSON. */
  arguments: string;
  requester: Requester;
  /** Fires when the run stops: the question is then withdrawn (the answer is "cancelled"). */
  signal: AbortSignal;
}

/** The port the agent asks through; it resolves once the person answered, or its wait ran out. */
export type ConfirmTool = (request: ToolConfirmationRequest) => Promise<ToolConfirmationOutcome>;

/** One field of a form a tool asks the requester to fill in: a flat value, never an object. */
export interface InputField {
  name: string;
  /** What the person reads (the schema's title, or the name). */
  label: string;
  description?: string;
  /** `list`: several of `options` (a multi-select). */
  type: 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'list';
  /** The choices of an `enum` or `list` field: the values sent back. */
  options?: readonly string[];
  /** What people read of each option, when the schema titles them (`oneOf`, `enumNames`). */
  optionTitles?: readonly string[];
  required: boolean;
  default?: string | number | boolean | readonly string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** How many choices a `list` takes. */
  minItems?: number;
  maxItems?: number;
}

/** What a tool asks of the requester while it runs: a form to fill in, or a link to open. */
export interface InputRequest {
  tool: string;
  /** The tool's words to the person, as it sent them. */
  message: string;
  form: { kind: 'form'; fields: readonly InputField[] } | { kind: 'url'; url: string };
  requester: Requester;
  /** Fires when the call ends or the run stops: the question is then withdrawn ("cancel"). */
  signal: AbortSignal;
  /** Why it cannot be put to the person: it is declined, and they are told this in the thread. */
  unanswerable?: string;
}

/**
 * The requester's answer: `accept` with the form's values (none for a link, whose answer is that
 * they chose to open it), `decline` (they said no, or did not answer in time), or `cancel` (the
 * question was withdrawn, or could not be asked). The MCP spec's three actions.
 */
export interface InputOutcome {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

/** The port the agent asks through; it resolves once the person answered, or its wait ran out. */
export type AskInput = (request: InputRequest) => Promise<InputOutcome>;

/** What a tool receives besides its arguments. */
export interface ToolContext extends ConversationContext {
  /** Fires when the run is stopped or the tool's time limit passes. */
  signal: AbortSignal;
  /**
   * Records a URL this call's result shows the model as checked (a search result, a page fetched):
   * `final_answer`'s sources may cite it. Kept only when the call succeeds; absent outside a run.
   */
  noteSource?(url: string): void;
  /**
   * Whether words that are not the requester's own came into the run before this call: a forwarded
   * message or a file in its input, or an earlier turn's tool result (a web page, a search, an MCP
   * server's answer). A tool that acts for the requester on their word alone (remember) asks them
   * first. Absent: none (`/tool`, where the person named the call themselves).
   */
  othersWords?: boolean;
  /**
   * Tells how far a long call has got (an MCP server's `notifications/progress`): heard by the run's
   * listeners as a `tool-progress` event while the call runs, ignored after it ends; absent outside a run.
   */
  reportProgress?: (progress: ToolProgress) => void;
}

/** How far a call has got: `progress` grows; `total` is known when the tool says it (as in MCP). */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
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
  /** The JSON Schema of the arguments, whole: what `validate` checks and `/tool`'s options show. */
  inputSchema: Record<string, unknown>;
  /** The spec sent to the model, built once from the fields above (its schema grammar-safe: grammar-safe-schema.ts). */
  spec: FunctionSpec;
  moderatorOnly: boolean;
  /** It may change or delete things (an MCP tool's annotations, or the operator's word): it runs once the asker confirms. */
  needsConfirmation?: boolean;
  /**
   * Its arguments are private (a member's remembered fact): what the step log, memory, posts and
   * later model calls show instead of them, in a few words ("fact remembered"), with their length
   * (src/agent/private-arguments.ts).
   */
  privateArguments?: string;
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
