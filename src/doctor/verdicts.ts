/**
 * What the probes' outcomes mean, and what the bot does about each gap: the rules the bot's client
 * applies when it meets the gap in a run (adaptation-rules.ts: a reply without the forced call
 * switches to the text protocol unless the profile says the server enforces it; a named choice
 * answered with another tool is sent as "required" with that tool alone; a refusal whose error
 * names the problem gets `fixFor`'s fix). Fixes found here are returned to be remembered, as the
 * bot would remember them, so that its first run starts adapted. Pure: no I/O.
 */
import type { ModelError } from '../agent/model-error.ts';
import type { ProviderProfile } from '../model-servers/profiles/profile.ts';
import {
  type CallessReply,
  fixFor,
  learnsNamedChoice,
  showsChoiceIgnored,
  switchesToText,
} from '../model-servers/adaptation-rules.ts';
import { describeFixes, mergeFixes, type ServerFixes, type ToolProtocol } from '../model-servers/server-fixes.ts';
import { readContextRefusal } from '../model-servers/context-refusal.ts';
import type { CheckupRow } from '../model-servers/server-summary.ts';
import { truncate } from '../text/truncate.ts';
import type { ProbeOutcome } from './chat-probes.ts';
import { namedTool, probeBody, type ProbeName, probeReplyTokens } from './probe-requests.ts';

/** What the verdicts depend on besides the outcomes. */
export interface Situation {
  profile: ProviderProfile;
  model: string;
  /** TOOL_PROTOCOL as set. */
  toolProtocol: ToolProtocol | 'auto';
  /** The fixes in effect before the doctor ran: the profile's, and those learned before. */
  fixes: ServerFixes;
  /** Those learned before (to say where a fix in effect comes from). */
  learned: ServerFixes;
}

export type Outcomes = Record<ProbeName, ProbeOutcome>;

/**
 * Refusals that say nothing of the capability: about the access (reported once, in the access
 * rows), or of the moment (a rate limit, a server error, the quota, which the end-to-end run meets too).
 */
const notAboutTheCapability = new Set([
  'bad-credentials',
  'model-not-found',
  'wrong-endpoint',
  'rate-limited',
  'quota-exceeded',
  'unavailable',
]);

/** The capability rows, in the order of the report, and the fixes to remember. */
export function judgeCapabilities(
  outcomes: Outcomes,
  situation: Situation,
): { rows: CheckupRow[]; learn: ServerFixes } {
  let learn: ServerFixes = {};
  const current = () => mergeFixes(situation.fixes, learn);
  const adopt = (fixes: ServerFixes) => void (learn = mergeFixes(learn, fixes));
  const requiredHonoured = outcomes.required.kind === 'reply' && outcomes.required.calls.length > 0;
  const context = { situation, current, adopt, requiredHonoured };
  // In this order: what "required" teaches decides what the named choice needs.
  return {
    rows: [
      requiredRow(outcomes.required, context),
      namedRow(outcomes.named, context),
      strictRow(outcomes.strict, context),
      parallelRow(outcomes.parallel),
      imagesRow(outcomes.images, situation.model),
      streamingRow(outcomes.streaming, requiredHonoured),
    ],
    learn,
  };
}

interface Context {
  situation: Situation;
  /** The "required" probe got a call: the server enforces it. */
  requiredHonoured: boolean;
  current(): ServerFixes;
  adopt(fixes: ServerFixes): void;
}

function row(check: string, label: string, status: CheckupRow['status'], result: string, action: string): CheckupRow {
  return { check, label, status, result, action };
}

/** A refusal in a few words: the status and the server's message, cut short. */
export function refusal(error: ModelError): string {
  const said = error.reply?.message ?? error.message;
  return `refused (${error.status ?? 'no status'}): ${truncate(said.replace(/\s+/g, ' '), 80)}`;
}

/** The row of an outcome that says nothing about the capability: no answer, or an access problem. */
function notChecked(check: string, label: string, outcome: ProbeOutcome): CheckupRow | null {
  if (outcome.kind === 'no-answer') return row(check, label, 'unknown', `not checked: ${outcome.reason}`, 'not known');
  const sizes = outcome.kind === 'refused' ? readContextRefusal(outcome.error) : null;
  if (sizes)
    return row(
      check,
      label,
      'unknown',
      `not checked: the probe (${sizes.promptTokens} tokens) does not fit the server's context (${sizes.contextTokens} tokens)`,
      'see context size',
    );
  if (outcome.kind === 'refused' && notAboutTheCapability.has(outcome.error.kind))
    return row(check, label, 'unknown', `not checked: ${refusal(outcome.error)}`, 'not known');
  return null;
}

/** A refusal the bot may know a fix for (`fixFor`, as its client applies it and remembers it). */
function refusedRow(check: string, label: string, name: ProbeName, error: ModelError, context: Context): CheckupRow {
  // Groq: the model did call, but wrote the call so that the server could not parse it.
  if (error.reply?.code === 'tool_use_failed')
    return row(
      check,
      label,
      'gap',
      `refused (${error.status}): the model's call could not be parsed (tool_use_failed)`,
      'reads the call from what the model wrote (failed_generation), or sends the problem back to the model',
    );
  const fix = fixFor(error, probeBody(name, context.situation.model), context.current());
  if (!fix)
    return row(
      check,
      label,
      'gap',
      refusal(error),
      "no fix known for this error: the end-to-end run shows whether the bot works; TOOL_PROTOCOL=text avoids the API's tools",
    );
  context.adopt(fix.fixes);
  return row(check, label, 'gap', refusal(error), `${describeFixes(fix.fixes).join('; ')}: remembered`);
}

function protocolInUse(context: Context): ToolProtocol {
  const { toolProtocol } = context.situation;
  return toolProtocol !== 'auto' ? toolProtocol : (context.current().toolProtocol ?? 'native');
}

/** What the bot does about a forced choice answered without a call (`switchesToText`, as its client applies it). */
function forcedChoiceIgnored(context: Context, reply: CallessReply): string {
  const { toolProtocol, profile, learned } = context.situation;
  if (toolProtocol === 'text') return 'none needed: TOOL_PROTOCOL=text writes the tools into the prompt';
  if (toolProtocol === 'native')
    return "none: TOOL_PROTOCOL=native keeps the API's tools; the agent asks once more, then takes plain text as the answer (TOOL_PROTOCOL=auto adapts)";
  if (context.current().toolProtocol === 'text')
    return learned.toolProtocol === 'text'
      ? 'writes the tools into the prompt (text protocol, learned before)'
      : 'writes the tools into the prompt (text protocol): remembered';
  if (!switchesToText({ profile, toolProtocol, fixes: context.current() }, reply))
    return `none: the ${profile.name} profile says the server enforces it, so the bot takes this for a fluke; set TOOL_PROTOCOL=text if it goes on`;
  context.adopt({ toolProtocol: 'text' });
  return 'writes the tools into the prompt (text protocol): remembered';
}

function requiredRow(outcome: ProbeOutcome, context: Context): CheckupRow {
  const [check, label] = ['required-choice', 'tool_choice "required"'];
  const skipped = notChecked(check, label, outcome);
  if (skipped) return skipped;
  if (outcome.kind === 'refused') return refusedRow(check, label, 'required', outcome.error, context);
  if (outcome.kind !== 'reply') return row(check, label, 'unknown', 'not checked', 'not known');
  if (outcome.calls.length === 0) {
    if (!showsChoiceIgnored(outcome)) return cutBeforeACall(check, label, outcome);
    const cut = outcome.finishReason === 'length' ? ' (cut at the length limit)' : '';
    const result = outcome.text.trim() === '' ? 'ignored: an empty reply' : `ignored: answered in plain text${cut}`;
    return row(check, label, 'gap', result, forcedChoiceIgnored(context, outcome));
  }
  const { toolProtocol, learned } = context.situation;
  const note =
    toolProtocol === 'text'
      ? 'none needed (TOOL_PROTOCOL=text writes the tools into the prompt anyway)'
      : learned.toolProtocol === 'text' && toolProtocol === 'auto'
        ? 'the text protocol learned before stays until forgotten (COMPATIBILITY.md says how)'
        : 'none needed';
  if (outcome.fromText)
    return row(
      check,
      label,
      'ok',
      'honoured, the call written as text in the content',
      `reads calls written as text; ${note}`,
    );
  return row(check, label, 'ok', 'honoured', note);
}

/** A reply that ended before it showed whether the choice is enforced (the same rule as a run's, `showsChoiceIgnored`). */
function cutBeforeACall(check: string, label: string, reply: CallessReply): CheckupRow {
  const why =
    reply.finishReason === 'content_filter'
      ? 'stopped by a content filter before a call'
      : reply.text.trim() === ''
        ? `cut at the length limit (${probeReplyTokens} tokens) before any visible text: a model that thinks at length?`
        : `cut at the length limit (${probeReplyTokens} tokens) in what may be a call`;
  return row(
    check,
    label,
    'unknown',
    `not known: ${why}`,
    'the bot learns it from a run: a reply in plain text switches it to the text protocol',
  );
}

function namedRow(outcome: ProbeOutcome, context: Context): CheckupRow {
  const [check, label] = ['named-choice', 'named tool_choice'];
  const skipped = notChecked(check, label, outcome);
  if (skipped) return skipped;
  if (outcome.kind === 'refused') return refusedRow(check, label, 'named', outcome.error, context);
  if (outcome.kind !== 'reply') return row(check, label, 'unknown', 'not checked', 'not known');
  if (outcome.calls.includes(namedTool)) return row(check, label, 'ok', 'honoured', 'none needed');
  if (outcome.calls.length > 0)
    return row(
      check,
      label,
      'gap',
      `ignored: called ${outcome.calls[0]}, not ${namedTool}`,
      namedChoiceIgnored(context),
    );
  // No call: the server read the choice as "auto" (llama.cpp does, ggml-org/llama.cpp#26535), and
  // the model answered freely. Where "required" is enforced, or a named choice already goes as
  // "required", the fix is the one for a named choice, not the text protocol (issue 38).
  if (context.requiredHonoured || context.current().namedChoice === 'required-with-one-tool')
    return row(check, label, 'gap', 'ignored: no call (read as "auto")', namedChoiceIgnored(context));
  if (!showsChoiceIgnored(outcome)) return cutBeforeACall(check, label, outcome);
  return row(check, label, 'gap', 'ignored: no call', forcedChoiceIgnored(context, outcome));
}

/** What the bot does about a named choice answered with another tool (`learnsNamedChoice`, as its client applies it). */
function namedChoiceIgnored(context: Context): string {
  const { toolProtocol, profile } = context.situation;
  if (protocolInUse(context) === 'text') return 'none needed: in the text protocol the prompt names the tool to call';
  if (context.current().namedChoice === 'required-with-one-tool') {
    const source = profile.fixes.namedChoice === 'required-with-one-tool' ? "the profile's fix" : 'learned before';
    return `sends it as "required" with that tool alone (${source})`;
  }
  if (toolProtocol === 'native')
    return "none: with TOOL_PROTOCOL=native the bot does not adapt, and a run's last step may end without an answer";
  if (!learnsNamedChoice({ profile, toolProtocol, fixes: context.current() }))
    return `none: the ${profile.name} profile says the server enforces it, so the bot takes this for a fluke`;
  context.adopt({ namedChoice: 'required-with-one-tool' });
  return 'sends it as "required" with that tool alone: remembered';
}

function strictRow(outcome: ProbeOutcome, context: Context): CheckupRow {
  const [check, label] = ['strict-schemas', 'strict schemas'];
  const skipped = notChecked(check, label, outcome);
  if (skipped) return skipped;
  if (outcome.kind !== 'refused') return row(check, label, 'ok', 'accepted', 'none needed');
  const dropped = context.current().dropSchemaKeywords ?? [];
  const fix = fixFor(outcome.error, probeBody('strict', context.situation.model), context.current());
  if (!fix && dropped.includes('strict')) {
    const source = context.situation.profile.fixes.dropSchemaKeywords?.includes('strict')
      ? "the profile's fix"
      : 'learned before';
    return row(
      check,
      label,
      'gap',
      refusal(outcome.error),
      `schemas sent non-strict, without: ${dropped.join(', ')} (${source})`,
    );
  }
  if (fix?.fixes.dropSchemaKeywords) {
    context.adopt(fix.fixes);
    return row(
      check,
      label,
      'gap',
      refusal(outcome.error),
      `schemas sent without: ${fix.fixes.dropSchemaKeywords.join(', ')}: remembered`,
    );
  }
  return refusedRow(check, label, 'strict', outcome.error, context);
}

function parallelRow(outcome: ProbeOutcome): CheckupRow {
  const [check, label] = ['parallel-calls', 'parallel tool calls'];
  const skipped = notChecked(check, label, outcome);
  if (skipped) return skipped;
  // The probe asks as the bot does, without `parallel_tool_calls`: a refusal is of the tools, not of several calls.
  if (outcome.kind === 'refused')
    return row(check, label, 'unknown', refusal(outcome.error), 'see tool_choice "required"');
  if (outcome.kind !== 'reply' || outcome.calls.length === 0)
    return row(check, label, 'unknown', 'no call came back', 'see tool_choice "required"');
  if (outcome.calls.length === 1)
    return row(check, label, 'gap', 'one call per reply', 'none needed: one tool per step, so runs take more steps');
  return row(
    check,
    label,
    'ok',
    `yes: ${outcome.calls.length} calls in one reply`,
    'runs the calls of a reply at once',
  );
}

function imagesRow(outcome: ProbeOutcome, model: string): CheckupRow {
  const [check, label] = ['images', 'images'];
  // Words that say images are not taken at all are an answer, whatever the status: llama-server
  // without a projector answers 500 "image input is not supported" (ggml-org/llama.cpp#13566).
  if (outcome.kind === 'refused' && fixFor(outcome.error, probeBody('images', model), {})?.fixes.images === false)
    return row(
      check,
      label,
      'gap',
      `no: ${refusal(outcome.error)}`,
      'images are not sent to this model (MODEL_VISION=auto: remembered)',
    );
  const skipped = notChecked(check, label, outcome);
  if (skipped) return skipped;
  if (outcome.kind === 'refused')
    return row(
      check,
      label,
      'gap',
      refusal(outcome.error),
      'images are not sent to this model (MODEL_VISION=auto: remembered)',
    );
  return row(check, label, 'ok', 'accepted', 'images are shown to this model (MODEL_VISION=auto: remembered)');
}

function streamingRow(outcome: ProbeOutcome, requiredHonoured: boolean): CheckupRow {
  const [check, label] = ['streaming', 'streamed tool calls'];
  // What the bot does when it meets the gap in a run (server-client.ts, adaptation-rules.ts).
  const action = 'replies read whole, answers posted once whole (STREAM_ANSWERS has no effect here): remembered';
  const skipped = notChecked(check, label, outcome);
  if (skipped) return skipped;
  if (outcome.kind === 'refused') return row(check, label, 'gap', refusal(outcome.error), action);
  if (outcome.kind !== 'stream') return row(check, label, 'unknown', 'not checked', 'not known');
  if (!outcome.streamed) return row(check, label, 'gap', 'not streamed: a whole reply came back', action);
  // No call in a server that does not enforce one says nothing of streamed calls.
  if (!outcome.toolCallDeltas && !requiredHonoured)
    return row(
      check,
      label,
      'unknown',
      'streamed, without a call (as the "required" probe)',
      'see tool_choice "required"',
    );
  if (!outcome.toolCallDeltas)
    return row(check, label, 'gap', 'streamed, but no tool calls in the deltas', 'answers shown whole, at the end');
  return row(check, label, 'ok', 'yes: tool calls in the deltas', 'answers shown as they are written (STREAM_ANSWERS)');
}
