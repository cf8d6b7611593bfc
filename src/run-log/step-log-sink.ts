import type { RunQueries } from '../../db/runs.ts';
import type { StepQueries } from '../../db/steps.ts';
import type { AgentEventSink } from '../agent/events.ts';

export interface StepLogTarget {
  conversationId: number;
  instanceId: string;
  triggerMessageIds: number[];
  /** The interrupted run this one takes up again. */
  resumedFrom?: string | null;
}

/**
 * Writes the run and every step as it happens: a tool call's row when it starts, completed when it
 * ends, so that a crash leaves the finished steps on disk and the unfinished ones known as such.
 */
export function stepLogSink(runs: RunQueries, steps: StepQueries, target: StepLogTarget): AgentEventSink {
  let sequence = 0;
  const stepOfCall = new Map<string, number>();
  return (event) => {
    const now = Date.now();
    switch (event.type) {
      case 'run-start':
        runs.start(
          {
            id: event.runId,
            conversationId: target.conversationId,
            instanceId: target.instanceId,
            triggerMessageIds: target.triggerMessageIds,
            model: event.model,
            resumedFrom: target.resumedFrom ?? null,
          },
          now,
        );
        return;
      case 'model-call':
        steps.insert({
          ...blankStep(event.runId, ++sequence, event.step, now - event.durationMs),
          kind: 'model-call',
          message: JSON.stringify(event.message),
          status: 'ok',
          prompt_tokens: event.usage?.promptTokens ?? null,
          completion_tokens: event.usage?.completionTokens ?? null,
          duration_ms: event.durationMs,
          ended_at: now,
        });
        if (event.usage)
          runs.addUsage(event.runId, event.usage.promptTokens, event.usage.completionTokens, event.usage.totalTokens);
        return;
      case 'tool-call':
        stepOfCall.set(
          event.callId,
          steps.insert({
            ...blankStep(event.runId, ++sequence, event.step, now),
            tool_name: event.name,
            tool_call_id: event.callId,
            arguments: event.arguments,
          }),
        );
        return;
      case 'tool-result':
      case 'tool-error': {
        const end =
          event.type === 'tool-result'
            ? {
                status: 'ok' as const,
                result: event.result,
                error: null,
                error_kind: null,
                duration_ms: event.durationMs,
              }
            : {
                status: 'error' as const,
                result: null,
                error: event.error,
                error_kind: event.kind,
                duration_ms: event.durationMs,
              };
        const id = stepOfCall.get(event.callId);
        stepOfCall.delete(event.callId);
        // A refused final_answer has no start row: it is written whole.
        if (id === undefined)
          steps.insert({
            ...blankStep(event.runId, ++sequence, event.step, now),
            tool_name: event.name,
            tool_call_id: event.callId,
            ...end,
            ended_at: now,
          });
        else steps.complete(id, end, now);
        return;
      }
      case 'final-answer':
        steps.insert({
          ...blankStep(event.runId, ++sequence, event.step, now),
          kind: 'final-answer',
          tool_name: 'final_answer',
          tool_call_id: event.callId,
          status: 'ok',
          result: JSON.stringify(event.answer),
          note: event.fallback === null ? null : `${event.fallback} fallback`,
          ended_at: now,
        });
        return;
      case 'run-end':
        runs.finish(
          event.runId,
          {
            status: event.status,
            stopReason: event.stopReason,
            promptTokens: event.usage.promptTokens,
            completionTokens: event.usage.completionTokens,
            totalTokens: event.usage.totalTokens,
            error: event.error,
            errorCode: event.errorCode,
          },
          now,
        );
        return;
    }
  };
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
