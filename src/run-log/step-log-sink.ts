import type { RunQueries } from '../../db/runs.ts';
import type { StepQueries } from '../../db/steps.ts';
import { truncateLine } from '../text/truncate.ts';
import type {
  AgentEventSink,
  FinalAnswerEvent,
  InputNote,
  ModelCallEvent,
  RunEndEvent,
  RunStartEvent,
  ToolCallEvent,
  ToolErrorEvent,
  ToolResultEvent,
} from '../agent/events.ts';
import type { ToolConfirmationOutcome } from '../agent/tool.ts';

export interface StepLogTarget {
  conversationId: number;
  instanceId: string;
  triggerMessageIds: number[];
  /** The interrupted run this one resumes. */
  resumedFrom?: string | null;
}

/** What the step log keeps while a run goes: the next step's number, and the row of each tool call under way. */
interface StepLog {
  runs: RunQueries;
  steps: StepQueries;
  target: StepLogTarget;
  sequence: number;
  stepOfCall: Map<string, number>;
}

/**
 * Writes the run and every step as it happens: a tool call's row when it starts, completed when it
 * ends, so that a crash leaves the finished steps on disk and the unfinished ones known as such.
 */
export function stepLogSink(runs: RunQueries, steps: StepQueries, target: StepLogTarget): AgentEventSink {
  const log: StepLog = { runs, steps, target, sequence: 0, stepOfCall: new Map() };
  return (event) => {
    const now = Date.now();
    switch (event.type) {
      case 'run-start':
        return recordRunStart(log, event, now);
      case 'model-call':
        return recordModelCall(log, event, now);
      case 'tool-call':
        return recordToolCall(log, event, now);
      case 'tool-result':
      case 'tool-error':
        return recordToolEnd(log, event, now);
      case 'final-answer':
        return recordFinalAnswer(log, event, now);
      case 'run-end':
        return recordRunEnd(log, event, now);
    }
  };
}

function recordRunStart(log: StepLog, event: RunStartEvent, now: number): void {
  log.runs.start(
    {
      id: event.runId,
      conversationId: log.target.conversationId,
      instanceId: log.target.instanceId,
      triggerMessageIds: log.target.triggerMessageIds,
      model: event.model,
      resumedFrom: log.target.resumedFrom ?? null,
    },
    now,
  );
}

/** The call's row, whole, and its tokens added to the run's as they are spent. */
function recordModelCall(log: StepLog, event: ModelCallEvent, now: number): void {
  log.steps.insert({
    ...nextStep(log, event, now - event.durationMs),
    kind: 'model-call',
    message: JSON.stringify(event.message),
    status: 'ok',
    prompt_tokens: event.usage?.promptTokens ?? null,
    completion_tokens: event.usage?.completionTokens ?? null,
    cached_tokens: event.usage?.cachedPromptTokens ?? null,
    duration_ms: event.durationMs,
    ended_at: now,
  });
  if (event.usage)
    log.runs.addUsage(
      event.runId,
      event.usage.promptTokens,
      event.usage.completionTokens,
      event.usage.totalTokens,
      event.usage.cachedPromptTokens ?? 0,
    );
}

/** A started row, completed when the call ends. */
function recordToolCall(log: StepLog, event: ToolCallEvent, now: number): void {
  log.stepOfCall.set(
    event.callId,
    log.steps.insert({
      ...nextStep(log, event, now),
      tool_name: event.name,
      tool_call_id: event.callId,
      arguments: event.arguments,
    }),
  );
}

/** Completes the call's started row with its result or error. */
function recordToolEnd(log: StepLog, event: ToolResultEvent | ToolErrorEvent, now: number): void {
  const notes = [
    ...(event.confirmation ? [confirmationNote(event.confirmation)] : []),
    ...(event.inputs ?? []).map(inputNote),
  ];
  const note = notes.length > 0 ? notes.join('; ') : null;
  const end =
    event.type === 'tool-result'
      ? {
          status: 'ok' as const,
          result: event.result,
          error: null,
          error_kind: null,
          duration_ms: event.durationMs,
          note,
        }
      : {
          status: 'error' as const,
          result: null,
          error: event.error,
          error_kind: event.kind,
          duration_ms: event.durationMs,
          note,
        };
  const id = log.stepOfCall.get(event.callId);
  log.stepOfCall.delete(event.callId);
  // A refused final_answer has no start row: it is written whole.
  if (id === undefined)
    log.steps.insert({
      ...nextStep(log, event, now),
      tool_name: event.name,
      tool_call_id: event.callId,
      ...end,
      ended_at: now,
    });
  else log.steps.complete(id, end, now);
}

/** Who decided a call that needed confirmation, as the step log shows it: "confirmed by Ada (42)". */
function confirmationNote(outcome: ToolConfirmationOutcome): string {
  const who = outcome.by ? ` by ${outcome.by.displayName} (${outcome.by.id})` : '';
  return outcome.decision === 'timed-out' ? 'not confirmed in time: cancelled' : `${outcome.decision}${who}`;
}

/** A request for input, as the step log shows it: "input asked (name, age): accept" (never the values). */
function inputNote(input: InputNote): string {
  const asked = input.kind === 'url' ? 'link shown' : `input asked (${input.fields.join(', ')})`;
  return `${asked}: ${input.action}`;
}

function recordFinalAnswer(log: StepLog, event: FinalAnswerEvent, now: number): void {
  log.steps.insert({
    ...nextStep(log, event, now),
    kind: 'final-answer',
    tool_name: 'final_answer',
    tool_call_id: event.callId,
    status: 'ok',
    result: JSON.stringify(event.answer),
    note: finalAnswerNote(event),
    ended_at: now,
  });
}

/** How the answer came (a fallback), and the sources the model named that no tool of the run showed. */
function finalAnswerNote(event: FinalAnswerEvent): string | null {
  const notes = [
    ...(event.fallback === null ? [] : [`${event.fallback} fallback`]),
    ...(event.unverifiedSources?.length
      ? [`unverified sources dropped: ${event.unverifiedSources.map((url) => truncateLine(url, 300)).join(' ')}`]
      : []),
  ];
  return notes.length > 0 ? notes.join('; ') : null;
}

function recordRunEnd(log: StepLog, event: RunEndEvent, now: number): void {
  log.runs.finish(
    event.runId,
    {
      status: event.status,
      stopReason: event.stopReason,
      promptTokens: event.usage.promptTokens,
      completionTokens: event.usage.completionTokens,
      totalTokens: event.usage.totalTokens,
      cachedTokens: event.usage.cachedPromptTokens ?? 0,
      error: event.error,
      errorCode: event.errorCode,
    },
    now,
  );
}

/** The blank row of the run's next step, numbered in the order the steps happen. */
function nextStep(log: StepLog, event: { runId: string; step: number }, startedAt: number) {
  return blankStep(event.runId, ++log.sequence, event.step, startedAt);
}

function blankStep(runId: string, sequence: number, modelStep: number, startedAt: number) {
  return {
    run_id: runId,
    sequence,
    kind: 'tool-call' as const,
    model_step: modelStep,
    message: null,
    tool_name: null,
    tool_call_id: null,
    arguments: null,
    status: 'started' as const,
    result: null,
    error: null,
    error_kind: null,
    prompt_tokens: null,
    completion_tokens: null,
    duration_ms: null,
    started_at: Math.round(startedAt),
  };
}
