/**
 * The first half of every turn: one model call with the run's messages, `final_answer` forced at
 * the last step. The reply joins the messages and becomes a `Turn`, which `run-agent.ts` hands to
 * the case that takes it.
 */
import { answerWatcher } from '../answer-stream.ts';
import { finalAnswerToolName } from '../final-answer.ts';
import { addUsage } from '../messages.ts';
import type { ToolChoice } from '../model-client.ts';
import { withPrivateArgumentsHidden } from '../private-arguments.ts';
import type { RunState, Turn } from './turn.ts';

export async function askModel(run: RunState): Promise<Turn> {
  const { runId, emit } = run;
  run.step += 1;
  const step = run.step;
  const lastStep = step === run.settings.maxSteps;
  const toolChoice: ToolChoice = lastStep ? { name: finalAnswerToolName } : 'required';
  const callStarted = performance.now();
  const response = await run.model.complete(
    { messages: run.messages, tools: run.specs, toolChoice, cacheKey: run.context.conversationId },
    run.timeLimit.signal,
    run.streamAnswers ? answerWatcher((text) => emit({ type: 'answer-delta', runId, step, text })) : undefined,
  );
  run.usage = addUsage(run.usage, response.usage);
  // Recorded and sent back with a tool's private arguments hidden; the calls run as the model wrote them.
  const message = withPrivateArgumentsHidden(response.message, run.privacy);
  emit({
    type: 'model-call',
    runId,
    step,
    toolChoice,
    message,
    usage: response.usage,
    finishReason: response.finishReason,
    durationMs: performance.now() - callStarted,
  });
  run.messages.push(message);
  return {
    step,
    lastStep,
    message,
    calls: response.message.tool_calls ?? [],
    rejectedCall: response.rejectedCall,
    finishReason: response.finishReason,
  };
}
