import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ConversationRow } from '../../db/conversations.ts';
import type { NewImage } from '../../db/images.ts';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../agent/logger.ts';
import type { ModelClient } from '../agent/model-client.ts';
import type { AgentSettings } from '../agent/run-agent.ts';
import type { Requester, RuntimeTool, ToolServer } from '../agent/tool.ts';
import { type RunOutcome, runPlan } from '../conversation/conversation-run.ts';
import type { ConversationMemory } from '../memory/conversation-memory.ts';
import { maxImagesPerMessage } from '../images/take-image.ts';
import { readImageFile } from './image-file.ts';
import { printToolEvents } from './print-events.ts';

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
  const { conversation, memory, user } = options;
  let running: AbortController | null = null;
  // `/image PATH` lines wait here for the next message.
  let attached: NewImage[] = [];
  let notes: string[] = [];

  // Ctrl-C stops the answer in progress; at the prompt (or while waiting for the next piped line) it quits.
  const interrupt = () => {
    if (running) {
      write('\n(stopping…)');
      running.abort();
    } else {
      lines.close();
    }
  };
  lines.on('SIGINT', interrupt);
  options.signals?.on('SIGINT', interrupt);
  lines.once('close', () => options.signals?.off('SIGINT', interrupt));
  const prompt = () => {
    if (options.interactive) lines.prompt();
  };
  lines.setPrompt('you> ');
  prompt();

  for await (const line of lines) {
    const text = line.trim();
    if (text === '') {
      prompt();
      continue;
    }
    if (/^\/image(\s|$)/.test(text)) {
      const outcome =
        attached.length >= maxImagesPerMessage
          ? {
              image: null,
              note: null,
              say: `(not attached: at most ${maxImagesPerMessage} images go with one message)`,
            }
          : await readImageFile(text.slice('/image'.length).trim(), options.images ?? noImages);
      if (outcome.image) attached.push(outcome.image);
      if (outcome.note) notes.push(outcome.note);
      write(outcome.say);
      prompt();
      continue;
    }
    // Without a Discord id a message is never a duplicate, so it is always stored.
    const triggerIds = [
      memory.recordUserMessage(conversation, {
        authorId: user.id,
        authorName: user.displayName,
        content: [text, ...notes].join('\n\n'),
        discordMessageId: null,
        images: attached,
      })!,
    ];
    [attached, notes] = [[], []];
    running = new AbortController();
    const runId = randomUUID();
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
      },
      { runId, model: options.model, stop: running.signal, sinks: [printToolEvents(write)] },
    );
    running = null;
    write(formatOutcome(outcome));
    options.delivered?.(runId);
    prompt();
  }
  // An `/image` on the last line waited for a message that never came: said, not dropped.
  if (attached.length + notes.length > 0)
    write(`(not sent: the input ended before a message for the ${attached.length + notes.length} image(s) of /image)`);
}

/** The answer, or why there is none, as the person at the terminal reads it. */
export function formatOutcome(outcome: RunOutcome): string {
  if (outcome.kind === 'answered') {
    const tools = outcome.answer.tools_used.length > 0 ? `\n     (tools: ${outcome.answer.tools_used.join(', ')})` : '';
    return `bot: ${outcome.answer.answer}${tools}`;
  }
  const status = outcome.kind === 'no-answer' ? outcome.status : outcome.kind === 'interrupted' ? 'stopped' : 'failed';
  return `bot: (${status}) ${outcome.kind === 'interrupted' ? '' : outcome.userMessage}`.trimEnd();
}
