/**
 * How a run in a conversation is composed, the same for the bot and the terminal chat: prepare
 * (the prompt, the tools, the window) → run (the agent, with the run recorded in the step log
 * and memory) → an outcome the caller delivers. Neither Discord nor the terminal is known here.
 */
import type { ConversationRow } from '../../db/conversations.ts';
import { type AgentEventSink, fanOut, type StopReason } from '../agent/events.ts';
import type { FinalAnswer } from '../agent/final-answer.ts';
import type { Logger } from '../agent/logger.ts';
import type { ChatMessage, UserMessage } from '../agent/messages.ts';
import type { ModelClient } from '../agent/model-client.ts';
import { ModelError } from '../agent/model-error.ts';
import { type AgentSettings, runAgent, type RunAgentOptions } from '../agent/run-agent.ts';
import { buildSystemPrompt, type ConversationPlace } from '../agent/system-prompt.ts';
import type { AskInput, ConfirmTool, Requester, RuntimeTool, ToolServer } from '../agent/tool.ts';
import { currentTools, toolsFor } from '../agent/tool-registry.ts';
import type { ConversationMemory } from '../memory/conversation-memory.ts';
import { maskWith } from '../text/mask-secrets.ts';
import { holdsOthersWords } from '../text/others-words.ts';
import { directMessagesServerId } from '../../db/conversations.ts';
import { type MemberMemory, memberMemoryOfRun, withMemberFacts } from './member-facts.ts';

/** What every run of a process is made with. */
export interface RunSetup {
  memory: ConversationMemory;
  instanceId: string;
  tools: readonly RuntimeTool[];
  /** Servers whose tools come and go (MCP): listed anew for each run. */
  toolServers: readonly ToolServer[];
  agent: AgentSettings;
  operatorPrompt: string | null;
  logger: Logger;
  /** The `remember` tool and members' facts (src/conversation/member-facts.ts); absent: none anywhere (the terminal). */
  memberMemory?: MemberMemory;
}

/** One run: what it answers, what it knows, and where it takes place. */
export interface RunPlan {
  conversation: ConversationRow;
  place: ConversationPlace;
  /** The Discord channel the run answers in, for its tools (null at the terminal). */
  channelId: string | null;
  /** Who asked, oldest first: the last one is the requester its tools see. */
  requesters: readonly Requester[];
  history: readonly ChatMessage[];
  input: readonly UserMessage[];
  /** The stored messages it answers. */
  triggerIds: readonly number[];
  /** The run it resumes (after a crash, or a retry with a smaller window). */
  resumedFrom: string | null;
  /** Tools the runs it resumes already called. */
  calledBefore: readonly string[];
  /** Who spoke in the window, in the order they first did (`LoadedWindow.speakers`): named in the system message. */
  speakers?: readonly string[];
  /** The place's persona, set by its moderators: added to the operator's prompt. */
  persona?: string | null;
  /** Whether a tool is on where the run takes place (moderators may switch tools off). */
  toolAllowed?: (tool: RuntimeTool) => boolean;
  /** Whether the model chosen there sees images; the setup's `agent.seesImages` without it. */
  seesImages?: boolean;
  /** Whether the run's posts show people the images a tool makes for them (a Discord run with tool posts on). */
  showsImagesToPeople?: boolean;
  /** Asks the requester before a tool that `needsConfirmation` runs (in Discord: Confirm / Cancel buttons). */
  confirmTool?: ConfirmTool;
  /** Asks the requester for input a tool needs while it runs (in Discord: a button that opens a form). */
  askInput?: AskInput;
  /** Whether member memory is on where the run takes place (PlaceChoice.memberMemory). */
  memberMemory?: boolean;
}

/** How a run ended, as its deliverer needs to know it. */
export type RunOutcome =
  | { kind: 'answered'; runId: string; answer: FinalAnswer }
  /** No answer: a limit, `/stop`, or the model service; `userMessage` says so to people. */
  | {
      kind: 'no-answer';
      runId: string;
      status: 'stopped' | 'failed';
      /** Why a stopped run stopped (null when it failed, or was refused before it ran). */
      stopReason: StopReason | null;
      userMessage: string;
      rateLimitSeconds: number | null;
    }
  /** The model's context was too long for the window: worth one more try with a smaller one. */
  | { kind: 'context-too-long'; runId: string; userMessage: string }
  /** Stopped by the shutdown: to be resumed at the next start, nothing posted. */
  | { kind: 'interrupted'; runId: string };

/**
 * The agent's options for a plan: the same plan, at the same time and with the same tools listed by
 * the MCP servers, makes the same request (the live tool listing is the one thing read from outside).
 */
function prepareRun(
  setup: RunSetup,
  plan: RunPlan,
  now: Date,
): Omit<RunAgentOptions, 'model' | 'runId' | 'signal' | 'onEvent'> {
  // In the order each first spoke, so that the system message stays as it was while nobody new speaks.
  const participants = [
    plan.conversation.started_by_name,
    ...(plan.speakers ?? []),
    ...plan.requesters.map((requester) => requester.displayName),
  ];
  const requester = plan.requesters.at(-1) ?? { id: 'unknown', displayName: 'someone', isModerator: false };
  // Decided by the place alone: the tool, as the rest of the request, whatever a fact says (member-facts.ts).
  const remembering =
    plan.memberMemory && setup.memberMemory
      ? memberMemoryOfRun(setup.memberMemory, plan.conversation.guild_id ?? directMessagesServerId, plan.requesters)
      : null;
  const facts = remembering?.facts;
  return {
    systemPrompt: buildSystemPrompt({
      operatorPrompt: setup.operatorPrompt,
      persona: plan.persona ?? null,
      now,
      place: plan.place,
      participants: [...new Set(participants.filter((name): name is string => !!name))],
      memberMemory: remembering !== null,
    }),
    history: plan.history,
    input: facts ? withMemberFacts(plan.input, facts.of, facts.facts, maskWith(setup.agent.secrets ?? [])) : plan.input,
    tools: [
      ...toolsFor(currentTools(setup.tools, setup.toolServers), plan.requesters).filter(
        (tool) => plan.toolAllowed?.(tool) ?? true,
      ),
      // Switched off per channel as any tool is (`/settings tools`).
      ...(remembering && (plan.toolAllowed?.(remembering.tool) ?? true) ? [remembering.tool] : []),
    ],
    context: {
      conversationId: plan.conversation.key,
      guildId: plan.conversation.guild_id,
      channelId: plan.channelId,
      requester,
      logger: setup.logger,
      ...(plan.confirmTool ? { confirmTool: plan.confirmTool } : {}),
      ...(plan.askInput ? { askInput: plan.askInput } : {}),
    },
    settings: {
      ...setup.agent,
      ...(plan.seesImages === undefined ? {} : { seesImages: plan.seesImages }),
      ...(plan.showsImagesToPeople === undefined ? {} : { showsImagesToPeople: plan.showsImagesToPeople }),
    },
    calledBefore: plan.calledBefore,
    // Not offered here (member memory off, or the tool switched off): its arguments stay private all the same.
    ...(setup.memberMemory ? { privateWhenNotOffered: [setup.memberMemory.tool] } : {}),
    inputHoldsOthers: plan.input.some(holdsOthers),
  };
}

/** A message of the input that may hold others' words: a mark of the reader's (others-words.ts), or an image. */
function holdsOthers(message: UserMessage): boolean {
  if (typeof message.content === 'string') return holdsOthersWords(message.content);
  return message.content.some((part) => part.type !== 'text' || holdsOthersWords(part.text));
}

/**
 * Runs a plan: the run is recorded (step log and memory, each event in one transaction) and its
 * events go to `sinks` too. `stop` ends the run as stopped (`/stop`, Ctrl-C); `shutdown` ends it as
 * interrupted, to be resumed at the next start.
 */
export async function runPlan(
  setup: RunSetup,
  plan: RunPlan,
  options: {
    runId: string;
    model: ModelClient;
    sinks: readonly AgentEventSink[];
    stop?: AbortSignal;
    shutdown?: AbortSignal;
    /** Stream the replies, and tell the answer as it is written (`answer-delta` events to the sinks). */
    streamAnswers?: boolean;
  },
): Promise<RunOutcome> {
  const signals = [options.stop, options.shutdown].filter((signal): signal is AbortSignal => signal !== undefined);
  const record = setup.memory.runSink(
    plan.conversation.id,
    setup.instanceId,
    { triggerIds: plan.triggerIds, resumedFrom: plan.resumedFrom },
    setup.logger,
  );
  const result = await runAgent({
    ...prepareRun(setup, plan, new Date()),
    runId: options.runId,
    model: options.model,
    signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
    onEvent: fanOut([record, ...options.sinks], setup.logger),
    streamAnswers: options.streamAnswers,
  });
  const runId = result.runId;
  if (result.answer) return { kind: 'answered', runId, answer: result.answer };
  if (options.shutdown?.aborted && result.stopReason === 'aborted') return { kind: 'interrupted', runId };
  const userMessage = result.userMessage ?? 'No answer.';
  const error = result.error instanceof ModelError ? result.error : null;
  if (error?.kind === 'context-too-long') return { kind: 'context-too-long', runId, userMessage };
  const status = result.status === 'stopped' ? 'stopped' : 'failed';
  return {
    kind: 'no-answer',
    runId,
    status,
    stopReason: result.stopReason,
    userMessage,
    rateLimitSeconds: error?.kind === 'rate-limited' ? error.retryAfterSeconds : null,
  };
}
