/**
 * What every case of a turn shares: the run as the loop holds it, the model's reply of this turn,
 * and what a case decides (ask the model again, or end the run). `run-agent.ts` builds the run,
 * `ask-model.ts` makes a turn of each reply, and one case file per kind of reply takes it.
 */
import type { AgentSettings } from '../agent-settings.ts';
import type { SourceLedger } from '../checked-sources.ts';
import type { Deadline } from '../deadline.ts';
import type { AgentEventSink, StopReason } from '../events.ts';
import type { FinalAnswer } from '../final-answer.ts';
import type { AssistantMessage, ChatMessage, TokenUsage, ToolCall } from '../messages.ts';
import type { FunctionSpec, ModelClient } from '../model-client.ts';
import type { ConversationContext, RuntimeTool } from '../tool.ts';

/** One run, as the loop and its cases hold it. */
export interface RunState {
  readonly runId: string;
  readonly model: ModelClient;
  readonly settings: AgentSettings;
  readonly context: ConversationContext;
  /** Every event of the run goes out here; a sink that throws is logged, never ends the run. */
  readonly emit: AgentEventSink;
  /** The tools the model may call by name, `final_answer` apart. */
  readonly tools: ReadonlyMap<string, RuntimeTool>;
  /**
   * Whether words that are not the requester's own came into the run so far: in its input (a
   * forwarded message, a file; the caller says), or a tool's result of an earlier turn.
   */
  othersWords: boolean;
  /** Whose arguments are private, by name: the tools offered, and those with private arguments not offered. */
  readonly privacy: ReadonlyMap<string, Pick<RuntimeTool, 'privateArguments'>>;
  /** What each model call offers: the tools' specs, then `final_answer`'s. */
  readonly specs: readonly FunctionSpec[];
  /** Whether replies are streamed, and the answer told as it is written (`answer-delta`). */
  readonly streamAnswers: boolean;
  /** The run's time limit; its signal fires on the caller's signal too. */
  readonly timeLimit: Deadline;
  /** Why the run stops once the time limit's signal fired: the caller aborted, or time ran out. */
  readonly abortReason: () => StopReason;
  /** `performance.now()` when the run started. */
  readonly started: number;
  /** What the model is sent: the system prompt, the history, the input, then what the run adds. */
  readonly messages: ChatMessage[];
  /** Where the input starts in `messages`: the run's transcript is what follows. */
  readonly firstNew: number;
  /** Tools executed so far (and by an interrupted run this one resumes): `tools_used` keeps to these. */
  readonly called: Set<string>;
  /** URLs the run's tools showed the model: `final_answer`'s sources keep to these. */
  readonly sources: SourceLedger;
  usage: TokenUsage;
  /** Model calls made so far. */
  step: number;
  /** Whether the model was already told, once, that plain text is not an answer. */
  nudged: boolean;
  /** Replies in a row whose call the server could not read. */
  rejectedCalls: number;
}

/** One model reply, already added to the run's messages. */
export interface Turn {
  step: number;
  /** The run's last model call: `final_answer` was forced, and no model call follows. */
  lastStep: boolean;
  message: AssistantMessage;
  calls: readonly ToolCall[];
  /** Why the server could not read the call the model wrote; undefined when it could. */
  rejectedCall: string | undefined;
  /** Why the reply ended, as the server said (`length`: cut at the length limit). */
  finishReason: string | null;
}

/** How a run ends without failing: with an answer, or stopped for a reason. */
export type RunEnding = { status: 'answered'; answer: FinalAnswer } | { status: 'stopped'; reason: StopReason };

/** What a case decides: ask the model again, or end the run. */
export type TurnOutcome = { status: 'continue' } | RunEnding;

export const nextTurn: TurnOutcome = { status: 'continue' };

export const answered = (answer: FinalAnswer): RunEnding => ({ status: 'answered', answer });

export const stopped = (reason: StopReason): RunEnding => ({ status: 'stopped', reason });
