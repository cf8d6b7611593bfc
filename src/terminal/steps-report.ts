/**
 * What `npm run steps` prints: the run log as a table, one run's step log line by line, and the
 * same data as JSON for machines. Pure functions of the rows, so that tests need no process.
 */
import type { ContentFlagRow } from '../../db/content-flags.ts';
import type { ConversationRow } from '../../db/conversations.ts';
import type { RunRow } from '../../db/runs.ts';
import type { StepRow } from '../../db/steps.ts';
import { finalAnswerToolName } from '../agent/final-answer.ts';
import type { AssistantMessage } from '../agent/messages.ts';
import { stateOf } from '../conversation/run-lifecycle.ts';
import { formatElapsed } from '../text/duration.ts';
import { truncateLine } from '../text/truncate.ts';

/** One run with what the report shows beside it. */
export interface RunReport {
  run: RunRow;
  /** Null if the conversation row is gone (a purge removes its runs too, so it should not happen). */
  conversation: Pick<ConversationRow, 'id' | 'key' | 'title'> | null;
  steps: StepRow[];
  /** What a content check flagged in its answer (CONTENT_CHECK), with categories and scores; none when not given. */
  contentFlags?: ContentFlagRow[];
}

/** Arguments, results and answers are cut to this many characters on one line. */
const textWidth = 120;

/** Seconds precision is enough to find a run again; milliseconds only widen the column. */
function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The distinct tools a run called, in the order first called; `final_answer` is how it ends, not a tool. */
export function toolsUsed(steps: readonly StepRow[]): string[] {
  const names = steps
    .filter((step) => step.kind === 'tool-call' && step.tool_name !== null && step.tool_name !== finalAnswerToolName)
    .map((step) => step.tool_name!);
  return [...new Set(names)];
}

export function statusText(run: RunRow): string {
  const status = run.stop_reason === null ? run.status : `${run.status} (${run.stop_reason})`;
  // A memory summary's run (src/memory/memory-summary.ts), or a /summarize (kind 'catch-up'): told
  // apart from the runs that answered people.
  return run.kind === 'answer' ? status : `${run.kind} ${status}`;
}

/** Whether its people got its answer, or why there is none: what a moderator asks after "status". */
export function deliveryText(run: RunRow): string {
  if (run.kind === 'summary') return 'none: it summed up older turns for the memory window';
  if (run.kind === 'catch-up') return '/summarize: posted to its asker (the step log has what it wrote)';
  switch (stateOf(run)) {
    case 'running':
      return '-';
    case 'given-up':
      return 'given up: cut off too many times, its people were told to ask again';
    case 'delivered':
      return run.delivery ?? 'posted';
    default:
      return 'not yet: owed to its people, taken up at the next start unless a later run took it up';
  }
}

/** The delivery in a word or two, for the run log's table: "posted", "not yet", "given up", "none". */
function deliveryWord(run: RunRow): string {
  return deliveryText(run).split(':')[0]!;
}

/** The model a run used: the name of MODELS_FILE's entry, with the server's model when they differ. */
export function modelText(run: RunRow): string {
  return run.model_name === null || run.model_name === run.model ? run.model : `${run.model_name} (${run.model})`;
}

function durationText(run: RunRow): string {
  return run.ended_at === null ? '-' : formatElapsed(run.ended_at - run.started_at);
}

/** Plain-text columns padded to their widest cell; the last column is left ragged. */
function alignColumns(rows: readonly string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** The run log, one line per run in the order given (newest first, as the query returns them). */
export function formatRunsTable(reports: readonly RunReport[]): string {
  const header = [
    'RUN',
    'CONVERSATION',
    'STATUS',
    'DELIVERY',
    'MODEL',
    'STARTED',
    'DURATION',
    'TOKENS',
    'TOOLS',
    'ERROR',
  ];
  const rows = reports.map(({ run, conversation, steps }) => [
    run.id.slice(0, 8),
    truncateLine(conversation?.title ?? `#${run.conversation_id}`, 30),
    statusText(run),
    deliveryWord(run),
    truncateLine(run.model_name ?? run.model, 30),
    formatTime(run.started_at),
    durationText(run),
    String(run.total_tokens),
    toolsUsed(steps).join(', ') || '-',
    run.error === null ? '' : truncateLine(run.error, 60),
  ]);
  return alignColumns([header, ...rows]).join('\n');
}

/** A model-call step's stored assistant message, or null if there is none or it cannot be read. */
function assistantMessageOf(step: StepRow): AssistantMessage | null {
  if (step.message === null) return null;
  try {
    return JSON.parse(step.message) as AssistantMessage;
  } catch {
    return null;
  }
}

/**
 * A refused `final_answer` is logged without its arguments (it never started as a call), so they
 * are looked up in the model call that asked for it.
 */
function argumentsByCallId(steps: readonly StepRow[]): Map<string, string> {
  const byId = new Map<string, string>();
  for (const step of steps) {
    for (const call of assistantMessageOf(step)?.tool_calls ?? []) byId.set(call.id, call.function.arguments);
  }
  return byId;
}

function formatModelCall(step: StepRow): string {
  const parts = [`#${step.sequence} step ${step.model_step} model-call`];
  if (step.duration_ms !== null) parts.push(formatElapsed(step.duration_ms));
  const line = [parts.join(' ')];
  if (step.prompt_tokens !== null || step.completion_tokens !== null)
    line.push(
      `tokens ${step.prompt_tokens ?? '?'}+${step.completion_tokens ?? '?'}${step.cached_tokens === null ? '' : ` (${step.cached_tokens} cached)`}`,
    );
  const message = assistantMessageOf(step);
  const calls = message?.tool_calls ?? [];
  if (calls.length > 0) line.push(`→ calls: ${calls.map((call) => call.function.name).join(', ')}`);
  else if (message?.content) line.push(`→ text: ${JSON.stringify(truncateLine(message.content, textWidth))}`);
  else line.push(message === null ? '→ (message unreadable)' : '→ (empty reply)');
  // The model's thinking, folded to one line: never posted, but a moderator may want to see why.
  const thinking = message?.reasoning
    ? `\n    thinking (${message.reasoning.length} characters): ${JSON.stringify(truncateLine(message.reasoning, textWidth))}`
    : '';
  return line.join('  ') + thinking;
}

function formatToolCall(step: StepRow, run: RunRow, callArguments: ReadonlyMap<string, string>): string {
  const rawArguments =
    step.arguments ?? (step.tool_call_id === null ? undefined : callArguments.get(step.tool_call_id));
  const head = [
    `#${step.sequence} tool-call ${step.tool_name ?? '?'}`,
    ...(rawArguments === undefined ? [] : [truncateLine(rawArguments, textWidth)]),
  ].join(' ');
  const took = step.duration_ms === null ? '' : ` (${formatElapsed(step.duration_ms)})`;
  switch (step.status) {
    case 'ok':
      return `${head} → ${truncateLine(step.result ?? '', textWidth)}${took}`;
    case 'error':
      return `${head} ✗ ${step.error_kind ?? 'error'}: ${truncateLine(step.error ?? '', textWidth)}${took}`;
    case 'started':
      // While the run is live the call may still answer; once the run has ended it never will.
      return `${head} … ${run.status === 'running' ? 'not finished yet' : 'never finished'}`;
  }
}

function formatFinalAnswer(step: StepRow): string {
  let answer: { answer?: unknown; tools_used?: unknown } = {};
  try {
    answer = JSON.parse(step.result ?? '{}') as typeof answer;
  } catch {
    // Shown as unreadable below rather than hiding the step.
  }
  const text =
    typeof answer.answer === 'string' ? JSON.stringify(truncateLine(answer.answer, textWidth)) : '(unreadable)';
  const tools =
    Array.isArray(answer.tools_used) && answer.tools_used.length > 0 ? answer.tools_used.join(', ') : 'none';
  const fallback = step.note === null ? '' : ` [${step.note}]`;
  return `#${step.sequence} final answer: ${text} (tools: ${tools})${fallback}`;
}

/** One step as one line. */
function formatStep(step: StepRow, run: RunRow, callArguments: ReadonlyMap<string, string> = new Map()): string {
  switch (step.kind) {
    case 'model-call':
      return formatModelCall(step);
    case 'tool-call':
      return formatToolCall(step, run, callArguments);
    case 'final-answer':
      return formatFinalAnswer(step);
  }
}

/** One run: a header of its facts, then its steps in order. */
export function formatRunDetail({ run, conversation, steps, contentFlags = [] }: RunReport): string {
  const conversationText =
    conversation === null ? `#${run.conversation_id} (deleted)` : `${conversation.title} (${conversation.key})`;
  const header: [string, string][] = [
    ['run', run.id],
    ['conversation', conversationText],
    ['status', statusText(run)],
    ['delivery', deliveryText(run)],
    ...(run.resumed_from === null ? [] : [['takes up', run.resumed_from] as [string, string]]),
    ['model', modelText(run)],
    ...(run.persona_version === null ? [] : [['persona', `v${run.persona_version}`] as [string, string]]),
    ['started', formatTime(run.started_at)],
    ['ended', run.ended_at === null ? '-' : formatTime(run.ended_at)],
    ['duration', durationText(run)],
    [
      'tokens',
      `${run.prompt_tokens} prompt${run.cached_tokens > 0 ? ` (${run.cached_tokens} cached)` : ''} + ${run.completion_tokens} completion = ${run.total_tokens} total`,
    ],
  ];
  if (run.error !== null)
    header.push(['error', run.error_code === null ? run.error : `${run.error} [${run.error_code}]`]);
  const width = Math.max(...header.map(([label]) => label.length));
  return [
    ...header.map(([label, value]) => `${label.padEnd(width)}  ${value}`),
    '',
    steps.length === 0 ? 'No steps were logged for this run.' : `${steps.length} step${steps.length === 1 ? '' : 's'}:`,
    ...stepLines({ run, steps, contentFlags }),
  ].join('\n');
}

/** Each of the run's steps as one line, in order, then its content flags (the step log's body, in the terminal and in Discord). */
export function stepLines({
  run,
  steps,
  contentFlags = [],
}: Pick<RunReport, 'run' | 'steps' | 'contentFlags'>): string[] {
  const callArguments = argumentsByCallId(steps);
  return [...steps.map((step) => formatStep(step, run, callArguments)), ...contentFlags.map(formatContentFlag)];
}

/** A content flag as a step line: which check, what it flagged, its categories with their scores. */
function formatContentFlag(flag: ContentFlagRow): string {
  const { categories, scores } = parsed(flag.categories) as { categories: string[]; scores: Record<string, number> };
  const named = categories.map((name) => (scores[name] === undefined ? name : `${name} ${scores[name].toFixed(2)}`));
  return `content-check (${flag.kind}) ${formatTime(flag.flagged_at)} → the ${flag.target} flagged, not shown: ${named.join(', ')}`;
}

/** A column that holds JSON by contract, parsed; kept as text if a bad write left it unreadable. */
function parsed(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The rows as stored, with the columns that hold JSON by contract parsed. A tool's arguments and
 * result stay text: the arguments are what the model wrote (invalid JSON is the interesting case)
 * and a result is an observation string, so sniffing them would change their type from row to row.
 */
export function runsToJson(reports: readonly RunReport[]): string {
  const runs = reports.map(({ run, conversation, steps, contentFlags = [] }) => ({
    ...run,
    trigger_message_ids: parsed(run.trigger_message_ids),
    posted_message_ids: parsed(run.posted_message_ids),
    live_message_ids: parsed(run.live_message_ids),
    conversation,
    tools_used: toolsUsed(steps),
    steps: steps.map((step) => ({
      ...step,
      message: parsed(step.message),
      result: step.kind === 'final-answer' ? parsed(step.result) : step.result,
    })),
    content_flags: contentFlags.map((flag) => ({ ...flag, categories: parsed(flag.categories) })),
  }));
  return JSON.stringify({ runs }, null, 2);
}
