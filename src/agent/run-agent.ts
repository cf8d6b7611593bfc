import { randomUUID } from 'node:crypto';
import { describeError, toError } from './errors.ts';
import { deadline } from './deadline.ts';
import { type AgentEvent, type AgentEventSink, fanOut, type RunStatus, type StopReason } from './events.ts';
import { settleFinalAnswers } from './final-answer-turn.ts';
import { type FinalAnswer, finalAnswerTool, finalAnswerToolName } from './final-answer.ts';
import type { ChatMessage, TokenUsage, ToolCall, ToolMessage, UserMessage } from './messages.ts';
import { addUsage, noUsage } from './messages.ts';
import type { ModelClient, ToolChoice } from './model-client.ts';
import { answerWatcher } from './answer-stream.ts';
import { ModelError } from './model-error.ts';
import type { ConversationContext, RuntimeTool } from './tool.ts';
import {
  finalAnswerAloneText,
  maxRejectedCalls,
  plainTextNudge,
  rejectedCallNote,
  stepLimitText,
  stopMessage,
} from './loop-texts.ts';
import { toolImagesMessage } from './tool-images.ts';
import { runToolTurn } from './tool-turn.ts';

/** Limits of one run. */
export interface AgentSettings {
  /** Model calls per run; the last one must call `final_answer`. */
  maxSteps: number;
  maxToolCallsPerTurn: number;
  runTimeoutMs: number;
  toolTimeoutMs: number;
  /** Whether the model sees images: those tools return are shown to it after their results. */
  seesImages?: boolean;
}

export const defaultAgentSettings: AgentSettings = {
  maxSteps: 10,
  maxToolCallsPerTurn: 8,
  runTimeoutMs: 120_000,
  toolTimeoutMs: 30_000,
};

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
  /** Tools an interrupted run this one takes up already called: `tools_used` may name them. */
  calledBefore?: readonly string[];
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
  const { model, settings, context } = options;
  const runId = options.runId ?? randomUUID();
  const started = performance.now();
  // A sink that throws is logged, never allowed to end the run or escape from it.
  const emit = fanOut(options.onEvent ? [options.onEvent] : [], context.logger);
  const tools = new Map(options.tools.filter((t) => t.name !== finalAnswerToolName).map((t) => [t.name, t]));
  const specs = [...[...tools.values()].map((t) => t.spec), finalAnswerTool.spec];
  const timeLimit = deadline(settings.runTimeoutMs, options.signal);
  const { signal } = timeLimit;
  const messages: ChatMessage[] = [
    { role: 'system', content: options.systemPrompt },
    ...options.history,
    ...options.input,
  ];
  const firstNew = 1 + options.history.length;
  const called = new Set<string>(options.calledBefore);
  let usage = noUsage;
  let step = 0;
  let nudged = false;
  let rejectedCalls = 0;

  const end = (
    status: RunStatus,
    fields: Partial<Pick<RunResult, 'answer' | 'stopReason' | 'userMessage'>>,
    error?: unknown,
  ): RunResult => {
    timeLimit.dispose();
    answerOpenCalls(messages);
    const result: RunResult = {
      runId,
      status,
      answer: fields.answer ?? null,
      stopReason: fields.stopReason ?? null,
      userMessage: fields.userMessage ?? null,
      error: error === undefined ? null : toError(error),
      transcript: messages.slice(firstNew),
      steps: step,
      usage,
    };
    const event: AgentEvent = {
      type: 'run-end',
      runId,
      status,
      stopReason: result.stopReason,
      userMessage: result.userMessage,
      error: error === undefined ? null : describeError(error),
      errorCode: error instanceof ModelError ? error.code : error === undefined ? null : 'internal',
      steps: step,
      usage,
      durationMs: performance.now() - started,
    };
    emit(event);
    return result;
  };
  const stopped = (reason: StopReason) =>
    end('stopped', { stopReason: reason, userMessage: stopMessage(reason, settings) });
  const abortReason = (): StopReason => (options.signal?.aborted ? 'aborted' : 'time-limit');

  emit({
    type: 'run-start',
    runId,
    conversationId: context.conversationId,
    model: model.model,
    toolNames: [...tools.keys()],
    at: new Date(),
  });
  try {
    while (true) {
      if (signal.aborted) return stopped(abortReason());
      if (step >= settings.maxSteps) return stopped('step-limit');
      step += 1;
      const lastStep = step === settings.maxSteps;
      const toolChoice: ToolChoice = lastStep ? { name: finalAnswerToolName } : 'required';
      const callStarted = performance.now();
      const response = await model.complete(
        { messages, tools: specs, toolChoice },
        signal,
        options.streamAnswers ? answerWatcher((text) => emit({ type: 'answer-delta', runId, step, text })) : undefined,
      );
      usage = addUsage(usage, response.usage);
      const assistant = response.message;
      emit({
        type: 'model-call',
        runId,
        step,
        toolChoice,
        message: assistant,
        usage: response.usage,
        finishReason: response.finishReason,
        durationMs: performance.now() - callStarted,
      });
      messages.push(assistant);
      const calls = assistant.tool_calls ?? [];

      if (response.rejectedCall !== undefined) {
        // The server could not read the call the model wrote: the model hears why, and tries again
        // (twice in a row at most, so a model that keeps writing broken calls ends the run).
        if (lastStep) return stopped('step-limit');
        if (rejectedCalls >= maxRejectedCalls) return stopped('no-answer');
        rejectedCalls += 1;
        messages.push({ role: 'user', content: rejectedCallNote(response.rejectedCall) });
        continue;
      }
      rejectedCalls = 0;

      if (calls.length === 0) {
        const text = assistant.content?.trim() ?? '';
        if (text !== '' && (nudged || lastStep)) {
          // Documented fallback for servers that ignore tool_choice: the text is the answer.
          const answer: FinalAnswer = { answer: text, tools_used: [...called] };
          emit({ type: 'final-answer', runId, step, callId: null, answer, fallback: 'plain-text' });
          return end('answered', { answer });
        }
        if (nudged) return stopped('no-answer');
        nudged = true;
        messages.push({ role: 'user', content: plainTextNudge });
        continue;
      }

      const others = calls.filter((call) => call.function.name !== finalAnswerToolName);
      if (others.length > 0 && lastStep && others.length < calls.length) {
        // No model call follows the last step, so tools run now could not be used: a valid
        // answer beside them is taken, and they are not run.
        const settled = settleFinalAnswers({
          runId,
          step,
          calls: calls.filter((call) => !others.includes(call)),
          called,
          emit,
        });
        const finals = new Map(
          calls
            .filter((call) => !others.includes(call))
            .map((call, index) => [call, settled.replies[index] as ToolMessage]),
        );
        messages.push(...calls.map((call) => finals.get(call) ?? notExecuted(runId, step, call, stepLimitText, emit)));
        return settled.answer ? end('answered', { answer: settled.answer }) : stopped('step-limit');
      }
      if (others.length > 0) {
        const outcome = await runToolTurn({
          runId,
          step,
          calls: others,
          tools,
          maxCalls: settings.maxToolCallsPerTurn,
          toolTimeoutMs: settings.toolTimeoutMs,
          runSignal: signal,
          context,
          emit,
          seesImages: settings.seesImages ?? false,
        });
        for (const name of outcome.executed) called.add(name);
        const results = new Map(others.map((call, index) => [call, outcome.messages[index] as ToolMessage]));
        const replies = calls.map(
          (call) => results.get(call) ?? notExecuted(runId, step, call, finalAnswerAloneText, emit),
        );
        messages.push(...replies);
        if (settings.seesImages && outcome.images.length > 0) messages.push(toolImagesMessage(outcome.images));
        if (lastStep) return stopped(signal.aborted ? abortReason() : 'step-limit');
        continue;
      }

      const settled = settleFinalAnswers({ runId, step, calls, called, emit });
      messages.push(...settled.replies);
      if (settled.answer) {
        return end('answered', { answer: settled.answer });
      }
    }
  } catch (error) {
    if (signal.aborted) return stopped(abortReason());
    if (error instanceof ModelError) return end('failed', { userMessage: error.userMessage }, error);
    context.logger.error({ err: error, runId }, 'the agent run failed');
    return end(
      'failed',
      { userMessage: 'Something went wrong on my side. The operator can find the cause in the logs.' },
      error,
    );
  }
}

/** Answers a call the loop does not run, so that every tool_call_id gets its message. */
function notExecuted(runId: string, step: number, call: ToolCall, text: string, emit: AgentEventSink): ToolMessage {
  emit({
    type: 'tool-error',
    runId,
    step,
    callId: call.id,
    name: call.function.name,
    kind: 'not-executed',
    error: text,
    durationMs: 0,
  });
  return { role: 'tool', tool_call_id: call.id, content: text };
}

/**
 * Answers, as cancelled, any call of the last assistant message that has no tool message yet (a
 * fault mid-turn), so that the transcript can always be sent again.
 */
function answerOpenCalls(messages: ChatMessage[]): void {
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const last = messages[lastAssistant];
  if (last?.role !== 'assistant' || !last.tool_calls) return;
  const answered = new Set(
    messages.slice(lastAssistant + 1).flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])),
  );
  for (const call of last.tool_calls) {
    if (!answered.has(call.id))
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: 'Cancelled: the run ended before this call finished.',
      });
  }
}
