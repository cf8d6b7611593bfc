import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fanOut, type AgentEventSink } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';
import type { ChatMessage } from '../agent/messages.ts';
import type { ModelClient } from '../agent/model-client.ts';
import { type AgentSettings, runAgent, type RunResult } from '../agent/run-agent.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import type { Requester, RuntimeTool } from '../agent/tool.ts';
import { toolsFor } from '../agent/tool-registry.ts';
import { printToolEvents } from './print-events.ts';

export interface ChatSessionOptions {
  input: Readable;
  output: Writable;
  /** Shows a prompt and handles Ctrl-C as a person at a terminal expects. */
  interactive: boolean;
  thread: string;
  user: Requester;
  model: ModelClient;
  tools: readonly RuntimeTool[];
  settings: AgentSettings;
  operatorPrompt: string | null;
  logger: Logger;
  /** Extra sinks for every agent event (the step log, later). */
  sinks?: readonly AgentEventSink[];
}

/**
 * A conversation at the terminal: each line is a user message, answered by the agent with its tool
 * invocations printed as they happen. Resolves at the end of input.
 */
export async function runChatSession(options: ChatSessionOptions): Promise<void> {
  const write = (line: string) => options.output.write(`${line}\n`);
  const lines = createInterface({ input: options.input, output: options.interactive ? options.output : undefined, terminal: options.interactive });
  const history: ChatMessage[] = [];
  const tools = toolsFor(options.tools, [options.user]);
  const onEvent = fanOut([printToolEvents(write), ...(options.sinks ?? [])], options.logger);
  let running: AbortController | null = null;

  lines.on('SIGINT', () => {
    if (running) {
      write('\n(stopping…)');
      running.abort();
    } else {
      lines.close();
    }
  });
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
    running = new AbortController();
    const result = await runAgent({
      model: options.model,
      systemPrompt: buildSystemPrompt({
        operatorPrompt: options.operatorPrompt,
        now: new Date(),
        place: { kind: 'terminal', conversation: options.thread },
        participants: [options.user.displayName],
      }),
      history,
      input: [{ role: 'user', content: `${options.user.displayName}: ${text}` }],
      tools,
      context: { conversationId: options.thread, guildId: null, channelId: null, requester: options.user, logger: options.logger },
      settings: options.settings,
      signal: running.signal,
      onEvent,
    });
    running = null;
    history.push(...result.memory);
    write(formatResult(result));
    prompt();
  }
}

/** The answer, or why there is none, as the person at the terminal reads it. */
export function formatResult(result: RunResult): string {
  if (result.answer) {
    const tools = result.answer.tools_used.length > 0 ? `\n     (tools: ${result.answer.tools_used.join(', ')})` : '';
    return `bot: ${result.answer.answer}${tools}`;
  }
  return `bot: (${result.status}) ${result.userMessage ?? ''}`.trimEnd();
}
