import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ConversationRow } from '../../db/conversations.ts';
import type { NewImage } from '../../db/images.ts';
import { randomUUID } from 'node:crypto';
import type { AgentEventSink } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';
import type { ModelClient } from '../agent/model-client.ts';
import type { AgentSettings } from '../agent/run-agent.ts';
import type { ConfirmTool, Requester, RuntimeTool, ToolServer } from '../agent/tool.ts';
import { type RunOutcome, runPlan } from '../conversation/conversation-run.ts';
import type { ConversationMemory } from '../memory/conversation-memory.ts';
import { maxImagesPerMessage } from '../images/take-image.ts';
import { readImageFile } from './image-file.ts';
import { liveAnswer } from './live-answer.ts';
import { printToolEvents } from './print-events.ts';
import { lineReader, terminalConfirmation } from './terminal-confirmation.ts';
import { numberedSources } from '../posts/render.ts';

const noImages = { vision: false, maxBytes: 0 };

export interface ChatSessionOptions {
  input: Readable;
  output: Writable;
  /** Shows a prompt and handles Ctrl-C as a person at a terminal expects. */
  interactive: boolean;
  /** The conversation at the terminal, its memory, and this process's instance id. */
  conversation: ConversationRow;
  memory: ConversationMemory;
  instanceId: string;
  user: Requester;
  model: ModelClient;
  tools: readonly RuntimeTool[];
  /** Servers whose tools come and go (MCP): listed anew for each answer. */
  toolServers?: readonly ToolServer[];
  agent: AgentSettings;
  operatorPrompt: string | null;
  logger: Logger;
  /** Whether the model sees images, and the largest one `/image` attaches (none unless given). */
  images?: { vision: boolean; maxBytes: number };
  /** Told once a run's answer (or why there is none) is printed: nothing more is owed for it. */
  delivered?: (runId: string) => void;
  /**
   * Where SIGINT arrives as a signal (the process): with piped input, Ctrl-C at the terminal signals
   * the process rather than typing a character into readline, and is handled the same way.
   */
  signals?: Pick<NodeJS.Process, 'on' | 'off'>;
  /** Sinks that hear every run's events besides the printing (the OpenTelemetry export, src/telemetry/). */
  runSinks?: readonly AgentEventSink[];
  /** STREAM_ANSWERS: replies streamed, and the answer printed as the model writes it. */
  streamAnswers?: boolean;
}

/** What a session carries from line to line: the answer in progress, and what `/image` attached for the next message. */
interface SessionState {
  running: AbortController | null;
  attached: NewImage[];
  notes: string[];
}

/**
 * A conversation at the terminal: each line is a user message, stored, then answered by the agent
 * with its tool invocations printed as they happen. Resolves at the end of input.
 */
export async function runChatSession(options: ChatSessionOptions): Promise<void> {
  const write = (line: string) => options.output.write(`${line}\n`);
  const lines = createInterface({
    input: options.input,
    output: options.interactive ? options.output : undefined,
    terminal: options.interactive,
  });
  const session: SessionState = { running: null, attached: [], notes: [] };
  handleInterrupts(lines, options.signals, session, write);
  const prompt = () => {
    if (options.interactive) lines.prompt();
  };
  lines.setPrompt('you> ');
  prompt();

  const reader = lineReader(lines);
  const confirmTool = terminalConfirmation(reader, write);
  for (let line = await reader.next(); typeof line === 'string'; line = await reader.next()) {
    const text = line.trim();
    if (/^\/image(\s|$)/.test(text)) write(await attachImage(text.slice('/image'.length).trim(), session, options));
    else if (text !== '') await answer(text, session, { ...options, confirmTool });
    prompt();
  }
  const waiting = session.attached.length + session.notes.length;
  // An `/image` on the last line waited for a message that never came: said, not dropped.
  if (waiting > 0) write(`(not sent: the input ended before a message for the ${waiting} image(s) of /image)`);
}

/** Ctrl-C stops the answer in progress; at the prompt (or while waiting for the next piped line) it quits. */
function handleInterrupts(
  lines: Interface,
  signals: ChatSessionOptions['signals'],
  session: SessionState,
  write: (line: string) => void,
): void {
  const interrupt = () => {
    if (session.running) {
      write('\n(stopping…)');
      session.running.abort();
    } else {
      lines.close();
    }
  };
  lines.on('SIGINT', interrupt);
  signals?.on('SIGINT', interrupt);
  lines.once('close', () => signals?.off('SIGINT', interrupt));
}

/** `/image PATH`: the image (or a note about it) waits for the next message; returns what to tell the person. */
async function attachImage(path: string, session: SessionState, options: ChatSessionOptions): Promise<string> {
  const outcome =
    session.attached.length >= maxImagesPerMessage
      ? { image: null, note: null, say: `(not attached: at most ${maxImagesPerMessage} images go with one message)` }
      : await readImageFile(path, options.images ?? noImages);
  if (outcome.image) session.attached.push(outcome.image);
  if (outcome.note) session.notes.push(outcome.note);
  return outcome.say;
}

/** Stores the line (with what `/image` attached) as a user message, runs the agent on it, and prints the outcome. */
async function answer(
  text: string,
  session: SessionState,
  options: ChatSessionOptions & { confirmTool: ConfirmTool },
): Promise<void> {
  const { conversation, memory, user } = options;
  // Without a Discord id a message is never a duplicate, so it is always stored.
  const triggerIds = [
    memory.recordUserMessage(conversation, {
      authorId: user.id,
      authorName: user.displayName,
      content: [text, ...session.notes].join('\n\n'),
      discordMessageId: null,
      images: session.attached,
    })!,
  ];
  [session.attached, session.notes] = [[], []];
  session.running = new AbortController();
  const runId = randomUUID();
  const live = liveAnswer((piece) => options.output.write(piece), 'bot: ');
  const outcome = await runPlan(
    { ...options, toolServers: options.toolServers ?? [] },
    {
      conversation,
      place: { kind: 'terminal', conversation: conversation.title },
      channelId: null,
      requesters: [user],
      ...memory.loadWindow(conversation.id, triggerIds),
      triggerIds,
      resumedFrom: null,
      calledBefore: [],
      confirmTool: options.confirmTool,
    },
    {
      runId,
      model: options.model,
      stop: session.running.signal,
      sinks: [printToolEvents(live.line), ...(options.streamAnswers ? [live.sink] : []), ...(options.runSinks ?? [])],
      streamAnswers: options.streamAnswers,
    },
  );
  session.running = null;
  live.finish(...formatOutcome(outcome));
  options.delivered?.(runId);
  // After the answer is printed, as the bot does after it is posted: what fell out of the window summed up.
  await memory.summarise({
    conversationId: conversation.id,
    model: options.model,
    modelName: options.model.model,
    shutdown: new AbortController().signal,
    instanceId: options.instanceId,
    logger: options.logger,
  });
}

/** The answer, or why there is none, as the person at the terminal reads it: its line, and what goes under it. */
function formatOutcome(outcome: RunOutcome): [head: string, tail: string] {
  if (outcome.kind === 'answered') {
    const tools = outcome.answer.tools_used.length > 0 ? `\n     (tools: ${outcome.answer.tools_used.join(', ')})` : '';
    const sources = outcome.answer.sources?.length
      ? `\n     sources:${numberedSources(outcome.answer.sources)
          .map((line) => `\n     ${line}`)
          .join('')}`
      : '';
    return [`bot: ${outcome.answer.answer}`, `${tools}${sources}`];
  }
  const status = outcome.kind === 'no-answer' ? outcome.status : outcome.kind === 'interrupted' ? 'stopped' : 'failed';
  return [`bot: (${status}) ${outcome.kind === 'interrupted' ? '' : outcome.userMessage}`.trimEnd(), ''];
}
