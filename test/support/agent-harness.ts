/**
 * What most agent tests share: the real openai client pointed at a scripted server, the built-in
 * tools, and a run that records its events.
 */
import type { AgentEvent } from '../../src/agent/events.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import type { ModelClient } from '../../src/agent/model-client.ts';
import { createOpenAIModelClient, type OpenAIModelClientOptions } from '../../src/model-servers/openai-model-client.ts';
import {
  type AgentSettings,
  defaultAgentSettings,
  runAgent,
  type RunAgentOptions,
  type RunResult,
} from '../../src/agent/run-agent.ts';
import type { ConversationContext, RuntimeTool } from '../../src/agent/tool.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { builtInTools } from '../../tools/index.ts';
import { chatRequestProblems } from './openai-conformance.ts';
import type { ScriptedModel } from './fake-model.ts';

export const testContext: ConversationContext = {
  conversationId: 'test-conversation',
  guildId: null,
  channelId: null,
  requester: { id: 'user-1', displayName: 'Ada', isModerator: false },
  logger: silentLogger,
};

/**
 * A client of the scripted server, which plays OpenAI's API: its profile is OpenAI's (forced tool
 * choices are enforced) unless a test names another provider to play.
 */
export function modelClientFor(
  server: Pick<ScriptedModel, 'baseURL'>,
  options: Partial<OpenAIModelClientOptions> = {},
  remember: Parameters<typeof createOpenAIModelClient>[1] = {},
) {
  return createOpenAIModelClient(
    {
      apiKey: 'sk-test',
      baseURL: server.baseURL,
      model: 'test-model',
      temperature: 0,
      maxRetries: 2,
      timeoutSeconds: 10,
      maxRetryWaitSeconds: 30,
      provider: 'openai',
      ...options,
    },
    remember,
  );
}

export interface RecordedRun extends RunResult {
  events: AgentEvent[];
}

/** Runs the agent once against `server` and records every event. */
export async function runOnce(
  server: Pick<ScriptedModel, 'baseURL'>,
  options: {
    tools?: readonly RuntimeTool[];
    settings?: Partial<AgentSettings>;
    signal?: AbortSignal;
    input?: string;
    client?: Partial<OpenAIModelClientOptions>;
    /** Where the client remembers what it learns of the server. */
    remember?: Parameters<typeof createOpenAIModelClient>[1];
    /** The client to run with (one for `server` unless given): to follow what one client learns over runs. */
    model?: ModelClient;
  } & Partial<Pick<RunAgentOptions, 'history' | 'streamAnswers'>> = {},
): Promise<RecordedRun> {
  const events: AgentEvent[] = [];
  const result = await runAgent({
    model: options.model ?? modelClientFor(server, options.client, options.remember),
    systemPrompt: 'You are a test.',
    history: options.history ?? [],
    input: [{ role: 'user', content: options.input ?? 'Ada: hello' }],
    tools: options.tools ?? buildToolRegistry(builtInTools),
    context: testContext,
    settings: { ...defaultAgentSettings, ...options.settings },
    signal: options.signal,
    onEvent: (event) => events.push(event),
    streamAnswers: options.streamAnswers,
  });
  // Whatever happened, the transcript must be valid to send again.
  const problems = chatRequestProblems({
    model: 'test-model',
    messages: [{ role: 'system', content: 'test' }, ...(options.history ?? []), ...result.transcript],
  });
  if (problems.length > 0) throw new Error(`the run left an invalid transcript:\n${problems.join('\n')}`);
  return { ...result, events };
}
