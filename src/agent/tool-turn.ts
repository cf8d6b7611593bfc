import { errorMessage } from './errors.ts';
import { formatTimeLimit } from '../text/duration.ts';
import { truncateWithNote } from '../text/truncate.ts';
import { type Deadline, deadline } from './deadline.ts';
import type { AgentEventSink, InputNote, ToolErrorKind } from './events.ts';
import type { ToolCall, ToolMessage } from './messages.ts';
import type { AskInput, ConversationContext, RuntimeTool, ToolConfirmationOutcome, ToolProgress } from './tool.ts';
import { imagesFor, imagesLine, isResultWithImages, type ToolImage } from './tool-images.ts';
import { untilAborted } from './until-aborted.ts';
import { shownArguments } from './private-arguments.ts';
import { maskWith } from '../text/mask-secrets.ts';

/** A tool result longer than this is cut before the model sees it. */
export const maxObservationChars = 16_000;

export interface ToolTurn {
  runId: string;
  step: number;
  /** The turn's calls other than `final_answer`, in the model's order. */
  calls: readonly ToolCall[];
  tools: ReadonlyMap<string, RuntimeTool>;
  /** Whose arguments are private, by name, offered or not (RunState.privacy); absent: the tools'. */
  privacy?: ReadonlyMap<string, Pick<RuntimeTool, 'privateArguments'>>;
  maxCalls: number;
  toolTimeoutMs: number;
  runSignal: AbortSignal;
  context: ConversationContext;
  emit: AgentEventSink;
  /** Whether the model sees the images tools return (shown after the turn's results). */
  seesImages?: boolean;
  /** Whether the run's posts show people the images a tool makes for them (imagesLine). */
  showsImagesToPeople?: boolean;
  /** Masked in every result and error (AgentSettings.secrets). */
  secrets?: readonly string[];
  /** Whether words not the requester's own came into the run before this turn (RunState.othersWords). */
  othersWords?: boolean;
}

export interface ToolTurnOutcome {
  /** One message per call, in call order. */
  messages: ToolMessage[];
  /** Names of the tools that were executed (whether they succeeded or not). */
  executed: string[];
  /** Images the calls returned, by tool, in call order (shown to a model that sees them, posted by `/tool`). */
  images: { tool: string; images: readonly ToolImage[] }[];
  /** URLs the calls that succeeded noted as shown to the model (`ToolContext.noteSource`), in call order. */
  sources: string[];
}

type Observation =
  | {
      ok: true;
      text: string;
      /** Images for the model, and for the people in the thread (`imagesFor`). */
      images?: { model: readonly ToolImage[]; people: readonly ToolImage[] };
      sources?: readonly string[];
    }
  | { ok: false; kind: ToolErrorKind; text: string };

/** A call whose tool and arguments are known good: it may run (once confirmed, if it must be). */
interface Runnable {
  tool: RuntimeTool;
  args: unknown;
}

/**
 * Runs one turn's tool calls concurrently. Every call ends as exactly one tool message: a result,
 * or an error observation the model can act on. Nothing here throws for a tool's fault.
 */
export async function runToolTurn(turn: ToolTurn): Promise<ToolTurnOutcome> {
  const executed: string[] = [];
  const images: ToolTurnOutcome['images'] = [];
  const started = performance.now();
  for (const call of turn.calls)
    turn.emit({
      type: 'tool-call',
      runId: turn.runId,
      step: turn.step,
      callId: call.id,
      name: call.function.name,
      arguments: shownArguments((turn.privacy ?? turn.tools).get(call.function.name), call.function.arguments),
    });
  const checked = turn.calls.map((call, index) => check(turn, call, index));
  // Asked before the tools' time limit starts: the time a person takes to answer is not the tool's.
  const confirmations = await Promise.all(checked.map((runnable) => confirmation(turn, runnable)));
  // The calls of a turn start together, so one deadline (one timer, a signal if a tool reads it) serves them all.
  const limit = deadline(turn.toolTimeoutMs, turn.runSignal);
  const sources: (readonly string[])[] = [];
  const messages = await Promise.all(
    turn.calls.map(async (call, index): Promise<ToolMessage> => {
      const runnable = checked[index]!;
      const confirmed = confirmations[index];
      const inputs: InputNote[] = [];
      const observation =
        'ok' in runnable
          ? runnable
          : confirmed && confirmed.decision !== 'confirmed'
            ? notConfirmed(runnable.tool, confirmed)
            : runnable.tool.needsConfirmation && !turn.context.confirmTool
              ? nobodyToConfirm(runnable.tool)
              : await run(turn, limit, runnable, executed, inputs, call);
      const base = {
        runId: turn.runId,
        step: turn.step,
        callId: call.id,
        name: call.function.name,
        durationMs: performance.now() - started,
        ...(confirmed ? { confirmation: confirmed } : {}),
        ...(inputs.length > 0 ? { inputs } : {}),
      };
      if (observation.ok && observation.images?.model.length)
        images[index] = { tool: call.function.name, images: observation.images.model };
      if (observation.ok && observation.sources?.length) sources[index] = observation.sources;
      const shown = observation.ok && observation.images?.people.length ? { images: observation.images.people } : {};
      if (observation.ok) turn.emit({ type: 'tool-result', ...base, result: observation.text, ...shown });
      else turn.emit({ type: 'tool-error', ...base, kind: observation.kind, error: observation.text });
      return { role: 'tool', tool_call_id: call.id, content: observation.text };
    }),
  ).finally(() => limit.dispose());
  return { messages, executed, images: images.filter(Boolean), sources: sources.flat() };
}

/** The call's tool and arguments, or why it cannot run. */
function check(turn: ToolTurn, call: ToolCall, index: number): Runnable | Observation {
  if (turn.runSignal.aborted) return { ok: false, kind: 'cancelled', text: 'Cancelled: the run was stopped.' };
  if (index >= turn.maxCalls) {
    return {
      ok: false,
      kind: 'not-executed',
      text: `Not executed: at most ${turn.maxCalls} tool calls run per turn. Call it again in your next turn if you still need it.`,
    };
  }
  const tool = turn.tools.get(call.function.name);
  if (!tool) {
    const valid = [...turn.tools.keys()].join(', ');
    return {
      ok: false,
      kind: 'unknown-tool',
      text: `Unknown tool "${call.function.name}". The valid tools are: ${valid}.`,
    };
  }
  const parsed = parseArguments(call.function.arguments);
  // JSON.parse's message quotes the text it could not read: not a private tool's.
  if (!parsed.ok)
    return { ok: false, kind: 'invalid-arguments', text: tool.privateArguments ? privateJsonError : parsed.text };
  const validation = tool.validate(parsed.value);
  if (!validation.ok) {
    return {
      ok: false,
      kind: 'invalid-arguments',
      text: `Invalid arguments for ${tool.name}:\n- ${validation.issues.join('\n- ')}\nFix them and call it again.`,
    };
  }
  return { tool, args: validation.value };
}

/** The requester's word on a call that needs it (none for other calls, or where nobody can be asked). */
async function confirmation(
  turn: ToolTurn,
  runnable: Runnable | Observation,
): Promise<ToolConfirmationOutcome | undefined> {
  const ask = turn.context.confirmTool;
  if ('ok' in runnable || !runnable.tool.needsConfirmation || !ask || turn.runSignal.aborted) return undefined;
  const asked = ask({
    tool: runnable.tool.name,
    arguments: JSON.stringify(runnable.args),
    requester: turn.context.requester,
    signal: turn.runSignal,
  });
  try {
    return await untilAborted(asked, turn.runSignal);
  } catch (error) {
    if (!turn.runSignal.aborted)
      turn.context.logger.warn({ err: error, tool: runnable.tool.name }, 'asking for a confirmation failed');
    return { decision: 'cancelled', by: null };
  }
}

function notConfirmed(tool: RuntimeTool, outcome: ToolConfirmationOutcome): Observation {
  const why =
    outcome.decision === 'timed-out'
      ? 'nobody confirmed it in time'
      : outcome.by
        ? `${outcome.by.displayName} cancelled it`
        : 'it was cancelled';
  return {
    ok: false,
    kind: 'not-confirmed',
    text: `Not executed: ${tool.name} needs the confirmation of the person who asked, and ${why}. Do not call it again unless they ask you to.`,
  };
}

/** A call that needs a person's confirmation where nobody can be asked: never run unasked. */
function nobodyToConfirm(tool: RuntimeTool): Observation {
  return {
    ok: false,
    kind: 'not-confirmed',
    text: `Not executed: ${tool.name} needs the confirmation of the person who asked, and nobody can be asked for it here. Do not call it again.`,
  };
}

async function run(
  turn: ToolTurn,
  limit: Deadline,
  runnable: Runnable,
  executed: string[],
  inputs: InputNote[],
  call: ToolCall,
): Promise<Observation> {
  if (turn.runSignal.aborted) return { ok: false, kind: 'cancelled', text: 'Cancelled: the run was stopped.' };
  executed.push(runnable.tool.name);
  const progress = progressReporter(turn, call);
  try {
    return await execute(turn, limit, runnable.tool, runnable.args, { inputs, reportProgress: progress.report });
  } finally {
    // A server may still send progress after the call ended (or was given up): nobody hears it.
    progress.end();
  }
}

/**
 * The context's `askInput`, noting each request's fields and answer for the step log (not the
 * values). The tools' time limit stands still while the person answers, as it has not started yet
 * while they confirm a call: their time is not the tool's (the question has its own, TOOL_CONFIRM_SECONDS).
 */
function notingInputs(ask: AskInput | undefined, inputs: InputNote[], limit: Deadline): { askInput?: AskInput } {
  if (!ask) return {};
  return {
    askInput: async (request) => {
      const release = limit.hold();
      const outcome = await ask(request).finally(release);
      const fields = request.form.kind === 'form' ? request.form.fields.map((field) => field.name) : [];
      inputs.push({ kind: request.form.kind, fields, action: outcome.action });
      return outcome;
    },
  };
}

/** What a call tells of its progress, as `tool-progress` events, until it ends. */
function progressReporter(turn: ToolTurn, call: ToolCall) {
  let running = true;
  const report = ({ progress, total, message }: ToolProgress) => {
    if (!running || !Number.isFinite(progress)) return;
    turn.emit({
      type: 'tool-progress',
      runId: turn.runId,
      step: turn.step,
      callId: call.id,
      name: call.function.name,
      progress,
      total: total !== undefined && Number.isFinite(total) && total > 0 ? total : null,
      message: message?.trim() || null,
    });
  };
  return { report, end: () => void (running = false) };
}

const privateJsonError = 'The arguments are not valid JSON. Send one JSON object that matches the schema.';

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; text: string } {
  // Some servers send "" for a call without arguments.
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return {
      ok: false,
      text: `The arguments are not valid JSON (${errorMessage(error)}). Send one JSON object that matches the schema.`,
    };
  }
}

async function execute(
  turn: ToolTurn,
  limit: Deadline,
  tool: RuntimeTool,
  args: unknown,
  { inputs, reportProgress }: { inputs: InputNote[]; reportProgress: (progress: ToolProgress) => void },
): Promise<Observation> {
  const askInput = notingInputs(turn.context.askInput, inputs, limit);
  const mask = maskWith(turn.secrets ?? []);
  // Kept only if the call succeeds: a URL noted by a call that then failed was never shown.
  const sources: string[] = [];
  const noteSource = (url: string) => void sources.push(url);
  try {
    const running = Promise.resolve().then(() =>
      tool.execute(args, {
        ...turn.context,
        ...askInput,
        // Made only for a tool that reads it (deadline.ts).
        get signal() {
          return limit.signal;
        },
        noteSource,
        reportProgress,
        othersWords: turn.othersWords ?? false,
      }),
    );
    const result = await limit.race(running);
    // A source whose URL holds a secret is not one to show: it goes with the masking.
    const shown = sources.filter((url) => mask(url) === url);
    if (isResultWithImages(result)) {
      const line = imagesLine(result.images, turn.seesImages, turn.showsImagesToPeople);
      return {
        ok: true,
        text: formatObservation(`${result.text}\n${line}`, mask),
        images: imagesFor(result.images),
        sources: shown,
      };
    }
    return { ok: true, text: formatObservation(result, mask), sources: shown };
  } catch (error) {
    if (turn.runSignal.aborted) return { ok: false, kind: 'cancelled', text: 'Cancelled: the run was stopped.' };
    if (limit.expired) {
      return {
        ok: false,
        kind: 'timeout',
        text: `Error: ${tool.name} did not finish within ${formatTimeLimit(turn.toolTimeoutMs)}.`,
      };
    }
    turn.context.logger.warn({ err: error, tool: tool.name }, 'a tool failed');
    return { ok: false, kind: 'threw', text: mask(`Error: ${errorMessage(error)}`) };
  }
}

/** What the model sees of a tool's result: text as it is, anything else as JSON, masked, then cut to size. */
export function formatObservation(result: unknown, mask: (text: string) => string = (text) => text): string {
  const text = mask(
    typeof result === 'string'
      ? result
      : result === undefined || result === null
        ? '(no result)'
        : JSON.stringify(result),
  );
  return truncateWithNote(text, maxObservationChars, (shown, total) => `\n[cut: ${total - shown} more characters]`);
}
