/**
 * The agent loop. Callers (the conversation's run, the terminal chat, the doctor) hand it the
 * memory window, the input and the tools; it asks the model (`turns/ask-model.ts`), reads each
 * reply as one of a few cases (`takeTurn` below: one file per case in `turns/`), and goes on until
 * a case ends the run. Everything it does goes out as events to the caller's sinks; the caller
 * gets a `RunResult` back.
 */
import { randomUUID } from 'node:crypto';
import { formatTimeLimit } from '../text/duration.ts';
import type { AgentSettings } from './agent-settings.ts';
import { deadline } from './deadline.ts';
import { describeError, toError } from './errors.ts';
import { type AgentEventSink, fanOut, type RunStatus, type StopReason } from './events.ts';
import { type FinalAnswer, finalAnswerTool, finalAnswerToolName } from './final-answer.ts';
import type { ChatMessage, TokenUsage, UserMessage } from './messages.ts';
import { noUsage } from './messages.ts';
import type { ModelClient } from './model-client.ts';
import { ModelError } from './model-error.ts';
import type { ConversationContext, RuntimeTool } from './tool.ts';
import { answerAtLastStep } from './turns/answer-at-last-step.ts';
import { askModel } from './turns/ask-model.ts';
import { answerOpenCalls } from './turns/calls-not-run.ts';
import { finalAnswers } from './turns/final-answers.ts';
import { plainText } from './turns/plain-text.ts';
import { rejectedCall } from './turns/rejected-call.ts';
import { toolCalls } from './turns/tool-calls.ts';
import { type RunEnding, type RunState, stopped, type Turn, type TurnOutcome } from './turns/turn.ts';

export { type AgentSettings, defaultAgentSettings } from './agent-settings.ts';

export interface RunAgentOptions {
  /** Chosen by the caller so that it can record the run before it starts; a UUID otherwise. */
  runId?: string;
  model: ModelClient;
  systemPrompt: string;
  /** The memory window, oldest first. */
  history: readonly ChatMessage[];
  /** The message(s) this run answers. */
  input: readonly UserMessage[];
  /** The tools offered in this run (moderator-only ones withheld by the caller as needed). */
  tools: readonly RuntimeTool[];
  context: ConversationContext;
  settings: AgentSettings;
  signal?: AbortSignal;
  onEvent?: AgentEventSink;
  /** Tools an interrupted run this one resumes already called: `tools_used` may name them. */
  calledBefore?: readonly string[];
  /**
   * Tools with private arguments that this run does not offer (`remember` where member memory is
   * off, or switched off in the channel): a call the model makes to one anyway is refused as an
   * unknown tool, and its arguments are recorded as the placeholder all the same (private-arguments.ts).
   */
  privateWhenNotOffered?: readonly Pick<RuntimeTool, 'name' | 'privateArguments'>[];
  /**
   * The input holds words that are not the requester's own (a forwarded message, a file read, a
   * link's preview): its tools hear so (`ToolContext.othersWords`), as after any tool's result.
   */
  inputHoldsOthers?: boolean;
  /**
   * Ask for streamed replies, and tell the answer as it is written (`answer-delta` events). Off:
   * replies are read whole.
   */
  streamAnswers?: boolean;
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  answer: FinalAnswer | null;
  stopReason: StopReason | null;
  /** What to tell the user when there is no answer. */
  userMessage: string | null;
  /** Why a failed run failed: a `ModelError` for the model service, another error for a bug. */
  error: Error | null;
  /** Every message the run added after the history (input included), valid to send again. */
  transcript: ChatMessage[];
  steps: number;
  usage: TokenUsage;
}

/**
 * Runs the agent until `final_answer` validates, a limit is reached, the signal fires or the model
 * service fails. It never throws: every ending is a `RunResult` and a `run-end` event.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const run = startRun(options);
  try {
    while (true) {
      if (run.timeLimit.signal.aborted) return endRun(run, stopped(run.abortReason()));
      if (run.step >= run.settings.maxSteps) return endRun(run, stopped('step-limit'));
      const outcome = await takeTurn(run, await askModel(run));
      if (outcome.status !== 'continue') return endRun(run, outcome);
    }
  } catch (error) {
    return endRun(run, failure(run, error));
  }
}

/** The table of cases: which kind of reply the model gave, and the case that takes it. */
function takeTurn(run: RunState, turn: Turn): TurnOutcome | Promise<TurnOutcome> {
  if (turn.rejectedCall !== undefined) return rejectedCall(run, turn, turn.rejectedCall);
  run.rejectedCalls = 0; // A reply the server could read ends a streak of rejected calls.
  if (turn.calls.length === 0) return plainText(run, turn);
  const others = turn.calls.filter((call) => call.function.name !== finalAnswerToolName);
  if (others.length === 0) return finalAnswers(run, turn);
  if (turn.lastStep && others.length < turn.calls.length) return answerAtLastStep(run, turn, others);
  return toolCalls(run, turn, others);
}

/** Builds the run's state from the caller's options, and tells the run's start. */
function startRun(options: RunAgentOptions): RunState {
  const { settings, context } = options;
  const tools = new Map(options.tools.filter((t) => t.name !== finalAnswerToolName).map((t) => [t.name, t]));
  const run: RunState = {
    runId: options.runId ?? randomUUID(),
    model: options.model,
    settings,
    context,
    emit: fanOut(options.onEvent ? [options.onEvent] : [], context.logger),
    tools,
    othersWords: options.inputHoldsOthers ?? false,
    privacy: new Map([...(options.privateWhenNotOffered ?? []).map((tool) => [tool.name, tool] as const), ...tools]),
    specs: [...[...tools.values()].map((t) => t.spec), finalAnswerTool.spec],
    streamAnswers: options.streamAnswers ?? false,
    timeLimit: deadline(settings.runTimeoutMs, options.signal),
    abortReason: () => (options.signal?.aborted ? 'aborted' : 'time-limit'),
    started: performance.now(),
    messages: [{ role: 'system', content: options.systemPrompt }, ...options.history, ...options.input],
    firstNew: 1 + options.history.length,
    called: new Set(options.calledBefore),
    sources: new Map(),
    usage: noUsage,
    step: 0,
    nudged: false,
    rejectedCalls: 0,
  };
  run.emit({
    type: 'run-start',
    runId: run.runId,
    conversationId: context.conversationId,
    model: run.model.model,
    toolNames: [...tools.keys()],
    at: new Date(),
  });
  return run;
}

/** How a run ends when something threw: the model service failed, or (a bug) anything else. */
type RunFailure = { status: 'failed'; userMessage: string; error: unknown };

function failure(run: RunState, error: unknown): RunEnding | RunFailure {
  if (run.timeLimit.signal.aborted) return stopped(run.abortReason());
  if (error instanceof ModelError) return { status: 'failed', userMessage: error.userMessage, error };
  run.context.logger.error({ err: error, runId: run.runId }, 'the agent run failed');
  const userMessage = 'Something went wrong on my side. The operator can find the cause in the logs.';
  return { status: 'failed', userMessage, error };
}

/** Ends the run: answers the calls it cut off, tells `run-end`, and gives the caller its result. */
function endRun(run: RunState, ending: RunEnding | RunFailure): RunResult {
  run.timeLimit.dispose();
  answerOpenCalls(run.messages);
  const error = ending.status === 'failed' ? ending.error : undefined;
  const stopReason = ending.status === 'stopped' ? ending.reason : null;
  let userMessage: string | null = null;
  if (ending.status === 'failed') userMessage = ending.userMessage;
  if (stopReason) userMessage = stopMessage(stopReason, run.settings);
  const result: RunResult = {
    runId: run.runId,
    status: ending.status,
    answer: ending.status === 'answered' ? ending.answer : null,
    stopReason,
    userMessage,
    error: error === undefined ? null : toError(error),
    transcript: run.messages.slice(run.firstNew),
    steps: run.step,
    usage: run.usage,
  };
  run.emit({
    type: 'run-end',
    runId: run.runId,
    status: result.status,
    stopReason,
    userMessage,
    error: error === undefined ? null : describeError(error),
    errorCode: error instanceof ModelError ? error.code : error === undefined ? null : 'internal',
    steps: run.step,
    usage: run.usage,
    durationMs: performance.now() - run.started,
  });
  return result;
}

/** Why a run stopped without an answer, in words for the people who asked. */
export function stopMessage(reason: StopReason, settings: { maxSteps: number; runTimeoutMs: number }): string {
  switch (reason) {
    case 'step-limit':
      return `I stopped after ${settings.maxSteps} steps without reaching an answer. Try a narrower question.`;
    case 'time-limit':
      return `I ran out of time (${formatTimeLimit(settings.runTimeoutMs)}) before reaching an answer.`;
    case 'aborted':
      return 'Stopped before an answer was reached.';
    case 'no-answer':
      return 'The model replied without an answer. Please try again, or rephrase.';
  }
}
