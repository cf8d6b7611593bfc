import type { AgentEventSink } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';

/**
 * One log line per event that matters to an operator: a run's start, and its end with status,
 * duration and tokens (a warning or an error when it did not answer). Tool failures at debug.
 */
export function logSink(logger: Logger, fields: Record<string, unknown>): AgentEventSink {
  return (event) => {
    switch (event.type) {
      case 'run-start':
        logger.info({ ...fields, runId: event.runId, model: event.model }, 'run started');
        return;
      case 'tool-error':
        logger.debug({ ...fields, runId: event.runId, tool: event.name, kind: event.kind }, 'tool call failed');
        return;
      case 'run-end': {
        const line = {
          ...fields,
          runId: event.runId,
          status: event.status,
          stopReason: event.stopReason ?? undefined,
          durationMs: Math.round(event.durationMs),
          steps: event.steps,
          tokens: event.usage.totalTokens,
          error: event.error ?? undefined,
          errorCode: event.errorCode ?? undefined,
        };
        if (event.status === 'answered') logger.info(line, 'run ended');
        else if (event.status === 'stopped') logger.warn(line, 'run stopped');
        else logger.error(line, 'run failed');
        return;
      }
      default:
        return;
    }
  };
}
