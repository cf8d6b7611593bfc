import type { FinalAnswer } from './final-answer.ts';
import type { Logger } from './logger.ts';
import type { AssistantMessage, TokenUsage } from './messages.ts';
import type { ToolChoice } from './model-client.ts';
import type { InputOutcome, ToolConfirmationOutcome } from './tool.ts';
import type { ToolImage } from './tool-images.ts';

/** How a run ended. */
export type RunStatus = 'answered' | 'stopped' | 'failed';

/** Why a run stopped without an answer. */
export type StopReason = 'step-limit' | 'time-limit' | 'aborted' | 'no-answer';

/** Why a tool call produced an error observation instead of a result. */
export type ToolErrorKind =
  | 'unknown-tool'
  | 'invalid-arguments'
  | 'threw'
  | 'timeout'
  | 'cancelled'
  | 'not-executed'
  /** A call that needed the asker's confirmation and did not get it (cancelled, or no answer in time). */
  | 'not-confirmed';

export interface RunStartEvent {
  type: 'run-start';
  runId: string;
  conversationId: string;
  model: string;
  toolNames: string[];
  at: Date;
}

export interface ModelCallEvent {
  type: 'model-call';
  runId: string;
  /** 1 for the first model call of the run. */
  step: number;
  toolChoice: ToolChoice;
  message: AssistantMessage;
  usage: TokenUsage | null;
  finishReason: string | null;
  durationMs: number;
}

/**
 * A tool call starts. `final_answer` calls have none: they end as a `final-answer` event, or as a
 * `tool-error` when refused; so does a call the loop answers without running it (`not-executed`).
 */
export interface ToolCallEvent {
  type: 'tool-call';
  runId: string;
  step: number;
  callId: string;
  name: string;
  /** The raw JSON text the model wrote. */
  arguments: string;
}

/** One request for input a call made (`askInput`): which fields (none for a link) and the answer. */
export interface InputNote {
  kind: 'form' | 'url';
  fields: string[];
  action: InputOutcome['action'];
}

/**
 * A running call told how far it has got (`ToolContext.reportProgress`): at any pace the tool
 * chooses, only between its `tool-call` and its `tool-result` or `tool-error`.
 */
export interface ToolProgressEvent {
  type: 'tool-progress';
  runId: string;
  step: number;
  callId: string;
  name: string;
  progress: number;
  /** Null when the tool does not know how much there is to do. */
  total: number | null;
  message: string | null;
}

export interface ToolResultEvent {
  type: 'tool-result';
  runId: string;
  step: number;
  callId: string;
  name: string;
  /** The observation the model sees. */
  result: string;
  /** Images the tool returned for the people in the thread (posted with its tool post); none when absent. */
  images?: readonly ToolImage[];
  durationMs: number;
  /** Set when the call needed the asker's confirmation. */
  confirmation?: ToolConfirmationOutcome;
  /** What the tool asked the requester for while it ran (field names and answer, never values). */
  inputs?: InputNote[];
}

export interface ToolErrorEvent {
  type: 'tool-error';
  runId: string;
  step: number;
  callId: string;
  name: string;
  kind: ToolErrorKind;
  /** The observation the model sees. */
  error: string;
  durationMs: number;
  /** Set when the call needed the asker's confirmation. */
  confirmation?: ToolConfirmationOutcome;
  /** What the tool asked the requester for while it ran (field names and answer, never values). */
  inputs?: InputNote[];
}

export interface FinalAnswerEvent {
  type: 'final-answer';
  runId: string;
  step: number;
  /** The `final_answer` call's id; null for a plain-text fallback. */
  callId: string | null;
  answer: FinalAnswer;
  /** Set when the answer came as plain text from a server that ignores `tool_choice`. */
  fallback: 'plain-text' | null;
  /** URLs the model gave as sources that no tool of the run showed: dropped from the answer (absent: none). */
  unverifiedSources?: string[];
}

export interface RunEndEvent {
  type: 'run-end';
  runId: string;
  status: RunStatus;
  stopReason: StopReason | null;
  /** A message safe to show the user when the run did not answer. */
  userMessage: string | null;
  /** Operator detail of a failure (no secrets). */
  error: string | null;
  errorCode: string | null;
  steps: number;
  usage: TokenUsage;
  durationMs: number;
}

/**
 * The answer of a `final_answer` call as the model writes it, in a streamed reply: all of it so far,
 * each time it grows. Always a prefix of the answer the call holds once whole, which may still be
 * refused (then a `tool-error` follows, and no `final-answer`).
 */
export interface AnswerDeltaEvent {
  type: 'answer-delta';
  runId: string;
  step: number;
  text: string;
}

export type AgentEvent =
  | RunStartEvent
  | AnswerDeltaEvent
  | ModelCallEvent
  | ToolCallEvent
  | ToolProgressEvent
  | ToolResultEvent
  | ToolErrorEvent
  | FinalAnswerEvent
  | RunEndEvent;

export type AgentEventSink = (event: AgentEvent) => void;

/**
 * One callback that hands each event to every sink in turn. A sink that throws is logged and
 * skipped: a broken sink must not stop the run or the other sinks.
 */
export function fanOut(sinks: readonly AgentEventSink[], logger: Logger): AgentEventSink {
  return (event) => {
    for (const sink of sinks) {
      try {
        sink(event);
      } catch (error) {
        logger.error({ err: error, event: event.type, runId: event.runId }, 'an agent event sink failed');
      }
    }
  };
}
