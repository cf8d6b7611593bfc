/**
 * Case: the model called tools. They run (concurrently, through `../tool-turn.ts`), and each call
 * gets its result as an observation. A `final_answer` beside them is not taken: an answer cannot
 * rest on results the model has not seen, so it is told to call it alone once it has read them.
 * At the last step no model call follows to read the results: the run stops.
 */
import { noteSource } from '../checked-sources.ts';
import type { ToolCall, ToolMessage } from '../messages.ts';
import { toolImagesMessage } from '../tool-images.ts';
import { runToolTurn } from '../tool-turn.ts';
import { notExecuted } from './calls-not-run.ts';
import { nextTurn, type RunState, stopped, type Turn, type TurnOutcome } from './turn.ts';

/** The reply to a `final_answer` beside other calls: those run, the answer waits for their results. */
const finalAnswerAloneText =
  'Not executed: call final_answer alone, in a turn of its own, once you have read these results.';

/** `others`: the turn's calls other than `final_answer`, in the model's order. */
export async function toolCalls(run: RunState, turn: Turn, others: readonly ToolCall[]): Promise<TurnOutcome> {
  const { settings } = run;
  const outcome = await runToolTurn({
    runId: run.runId,
    step: turn.step,
    calls: others,
    tools: run.tools,
    privacy: run.privacy,
    maxCalls: settings.maxToolCallsPerTurn,
    toolTimeoutMs: settings.toolTimeoutMs,
    runSignal: run.timeLimit.signal,
    context: run.context,
    emit: run.emit,
    seesImages: settings.seesImages ?? false,
    showsImagesToPeople: settings.showsImagesToPeople ?? false,
    secrets: settings.secrets,
    othersWords: run.othersWords,
  });
  for (const name of outcome.executed) run.called.add(name);
  // What a tool brought in (a page, a search, an MCP server's answer) is not the requester's words;
  // a tool with private arguments (remember) brings nothing in.
  if (outcome.executed.some((name) => !run.privacy.get(name)?.privateArguments)) run.othersWords = true;
  for (const url of outcome.sources) noteSource(run.sources, url);
  const results = new Map(others.map((call, index) => [call, outcome.messages[index] as ToolMessage]));
  run.messages.push(
    ...turn.calls.map((call) => results.get(call) ?? notExecuted(run, turn.step, call, finalAnswerAloneText)),
  );
  if (settings.seesImages && outcome.images.length > 0) run.messages.push(toolImagesMessage(outcome.images));
  if (turn.lastStep) return stopped(run.timeLimit.signal.aborted ? run.abortReason() : 'step-limit');
  return nextTurn;
}
