/**
 * The agent loop against the frameworks (issue 8, part 1). Same scripted model as agent-loop.ts
 * (the fake model's bench mode, forked into its own process): add(2,3) and multiply(4,5) in parallel, then
 * add(5,20), then final_answer "25", so three model requests per run. Every contender runs those
 * turns against the same server, interleaved round by round (in a shuffled order);
 * each run's answer and request count are checked so that none can win by doing less.
 *
 * The frameworks live in bench/package.json, never in the bot's dependencies:
 *
 *   npm run bench:frameworks [-- --runs 300 --warmup 50]   (compiled as it ships: bench/compiled.mjs)
 */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { createOpenAI } from '@ai-sdk/openai';
import { AgentExecutor, createOpenAIToolsAgent } from '@langchain/classic/agents';
import type { AgentAction, AgentFinish } from '@langchain/core/agents';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { RunnableLambda } from '@langchain/core/runnables';
import { ChatOpenAI } from '@langchain/openai';
import {
  Agent as OpenAIAgent,
  OpenAIChatCompletionsModel,
  run as runOpenAIAgent,
  setTracingDisabled,
  tool as openAIAgentsTool,
} from '@openai/agents';
import { generateText, hasToolCall, stepCountIs, tool as aiTool } from 'ai';
import { createAgent, createMiddleware, tool as langchainTool } from 'langchain';
import { OpenAI } from 'openai';
import { z } from 'zod';
import { silentLogger } from '../src/agent/logger.ts';
import { createOpenAIModelClient } from '../src/model-servers/openai-model-client.ts';
import { defaultAgentSettings, runAgent } from '../src/agent/run-agent.ts';
import { buildToolRegistry } from '../src/agent/tool-registry.ts';
import { bareLoop, benchTask, startModelProcess } from './bare-loop.ts';
import { openBotSinks } from './bot-sinks.ts';
import { measureRun, printTable } from './measure.ts';
import { defineTool } from '../tools/define-tool.ts';
import { sized } from './smoke.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: sized('300', '3') },
    warmup: { type: 'string', default: sized('50', '1') },
  },
});
const runs = Number(values.runs);
const warmup = Number(values.warmup);

// Every request of every contender goes through this fetch, installed before any client exists:
// it counts the requests of the current run and records any host other than the loopback server.
const realFetch = globalThis.fetch;
let requests = 0;
let inspecting: unknown[] | null = null;
const strangers = new Set<string>();
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname !== '127.0.0.1') {
    strangers.add(url.host);
    throw new Error(`bench: refused a request to ${url.host}`);
  }
  requests += 1;
  if (inspecting && typeof init?.body === 'string') inspecting.push(JSON.parse(init.body));
  return realFetch(input, init);
};

const server = await startModelProcess();
const { baseURL } = server;
const { model, systemPrompt, question } = benchTask;
const numberArgs = z.object({ a: z.number(), b: z.number() });
const finalArgs = z.object({ answer: z.string(), tools_used: z.array(z.string()) });
const add = ({ a, b }: { a: number; b: number }) => String(a + b);
const multiply = ({ a, b }: { a: number; b: number }) => String(a * b);

// --- (a) The floor: a bare loop on the openai client, as in agent-loop.ts. ---
const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });
const task = { model, systemPrompt, question };
const bareLoopAnswer = async () => (await bareLoop(client, task)).answer;

// --- (b) Ours: runAgent with zod tools, validation, events. ---
const tools = buildToolRegistry([
  defineTool({ name: 'add', description: 'a + b', parameters: numberArgs, execute: add }),
  defineTool({ name: 'multiply', description: 'a × b', parameters: numberArgs, execute: multiply }),
]);
const modelClient = createOpenAIModelClient({
  apiKey: 'bench',
  baseURL,
  model,
  temperature: 0,
  maxRetries: 0,
  timeoutSeconds: 30,
  maxRetryWaitSeconds: 0,
});
const context = {
  conversationId: 'bench',
  guildId: null,
  channelId: null,
  requester: { id: 'b', displayName: 'bench', isModerator: false },
  logger: silentLogger,
};

async function ours(): Promise<string> {
  const result = await runAgent({
    model: modelClient,
    systemPrompt,
    history: [],
    input: [{ role: 'user', content: question }],
    tools,
    context,
    settings: defaultAgentSettings,
  });
  return result.answer?.answer ?? `(${result.status}: ${result.userMessage})`;
}

// --- (b') Ours with the bot's own sinks: step log and memory in SQLite, log lines (bot-sinks.ts). ---
const sinks = await openBotSinks(model);
async function oursWithSinks(): Promise<string> {
  const onEvent = sinks.forRun(() => {});
  const result = await runAgent({
    model: modelClient,
    systemPrompt,
    history: [],
    input: [{ role: 'user', content: question }],
    tools,
    context,
    settings: defaultAgentSettings,
    onEvent,
  });
  return result.answer?.answer ?? `(${result.status}: ${result.userMessage})`;
}

// --- (c) LangChain createAgent: a middleware forces tool choice; final_answer returns directly. ---
const langchainModel = () =>
  new ChatOpenAI({ model, apiKey: 'bench', temperature: 0, maxRetries: 0, configuration: { baseURL } });
const langchainTools = (returnDirect: boolean) => [
  langchainTool(add, { name: 'add', description: 'a + b', schema: numberArgs }),
  langchainTool(multiply, { name: 'multiply', description: 'a × b', schema: numberArgs }),
  langchainTool(({ answer }: z.infer<typeof finalArgs>) => answer, {
    name: 'final_answer',
    description: 'Answer.',
    schema: finalArgs,
    returnDirect,
  }),
];
const forceToolChoice = createMiddleware({
  name: 'ForceToolChoice',
  wrapModelCall: (request, handler) => handler({ ...request, toolChoice: 'required' }),
});
const langchainAgent = createAgent({
  model: langchainModel(),
  tools: langchainTools(true),
  systemPrompt,
  middleware: [forceToolChoice],
});

async function langchainCreateAgent(): Promise<string> {
  const state = await langchainAgent.invoke({ messages: [{ role: 'user', content: question }] });
  return String(state.messages.at(-1)?.content);
}

// --- (d) LangChain classic: AgentExecutor over createOpenAIToolsAgent, tool_choice via modelKwargs. ---
// AgentExecutor refuses return-direct tools for a multi-action agent, and our scripted model never
// answers in plain text, so a last step of the agent runnable turns a final_answer call into the
// AgentFinish (the executor then stops after 3 requests, as the others do).
async function classicExecutor(streamRunnable: boolean | undefined) {
  const classicTools = langchainTools(false);
  const prompt = ChatPromptTemplate.fromMessages([
    ['system', systemPrompt],
    ['human', '{input}'],
    new MessagesPlaceholder('agent_scratchpad'),
  ]);
  // The bench model answers in JSON, never in server-sent events: in the default (streaming)
  // mode the executor still streams through the runnables, but the model call is a plain request.
  const disableStreaming = streamRunnable !== false;
  const llm = new ChatOpenAI({
    model,
    apiKey: 'bench',
    temperature: 0,
    maxRetries: 0,
    configuration: { baseURL },
    modelKwargs: { tool_choice: 'required' },
    disableStreaming,
  });
  const agent = await createOpenAIToolsAgent({ llm, tools: classicTools, prompt, streamRunnable });
  const finish = RunnableLambda.from((step: AgentAction[] | AgentFinish): AgentAction[] | AgentFinish => {
    const final = Array.isArray(step) ? step.find((action) => action.tool === 'final_answer') : undefined;
    return final ? { returnValues: { output: (final.toolInput as { answer?: string }).answer }, log: '' } : step;
  });
  // What AgentRunnableSequence.fromRunnables does (the class itself is not exported).
  const withFinish = Object.assign(agent.pipe(finish), { singleAction: false, streamRunnable });
  const executor = new AgentExecutor({ agent: withFinish, tools: classicTools });
  return async (): Promise<string> => String((await executor.invoke({ input: question })).output);
}
const classicStreaming = await classicExecutor(undefined);
const classicInvoke = await classicExecutor(false);

// --- (e) Vercel AI SDK: generateText, required tool choice, stop on final_answer. ---
const provider = createOpenAI({ apiKey: 'bench', baseURL });
const aiTools = {
  add: aiTool({ description: 'a + b', inputSchema: numberArgs, execute: async (args) => add(args) }),
  multiply: aiTool({ description: 'a × b', inputSchema: numberArgs, execute: async (args) => multiply(args) }),
  final_answer: aiTool({ description: 'Answer.', inputSchema: finalArgs }),
};

async function aiSdk(): Promise<string> {
  const result = await generateText({
    model: provider.chat(model),
    system: systemPrompt,
    prompt: question,
    tools: aiTools,
    toolChoice: 'required',
    stopWhen: [hasToolCall('final_answer'), stepCountIs(10)],
    temperature: 0,
    maxRetries: 0,
  });
  const final = result.toolCalls.find((call) => call.toolName === 'final_answer');
  return String((final?.input as { answer?: string } | undefined)?.answer);
}

// --- (f) OpenAI Agents SDK: tool choice kept, stops at final_answer, no tracing. ---
setTracingDisabled(true);
const agentsAgent = new OpenAIAgent({
  name: 'calculator',
  instructions: systemPrompt,
  model: new OpenAIChatCompletionsModel(new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 }), model),
  modelSettings: { toolChoice: 'required', temperature: 0 },
  resetToolChoice: false,
  toolUseBehavior: { stopAtToolNames: ['final_answer'] },
  tools: [
    openAIAgentsTool({ name: 'add', description: 'a + b', parameters: numberArgs, execute: add }),
    openAIAgentsTool({ name: 'multiply', description: 'a × b', parameters: numberArgs, execute: multiply }),
    openAIAgentsTool({
      name: 'final_answer',
      description: 'Answer.',
      parameters: finalArgs,
      execute: ({ answer }) => answer,
    }),
  ],
});

async function openAIAgents(): Promise<string> {
  return String((await runOpenAIAgent(agentsAgent, question)).finalOutput);
}

const version = (path: string) =>
  (JSON.parse(readFileSync(new URL(`${path}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
const v = (name: string) => version(`./node_modules/${name}`);
const contenders = [
  { name: `floor: bare loop on the openai ${version('../node_modules/openai')} client`, run: bareLoopAnswer },
  { name: 'ours: runAgent', run: ours },
  { name: "ours: runAgent + the bot's sinks (step log and memory in SQLite, log lines)", run: oursWithSinks },
  {
    name: `LangChain ${v('langchain')} createAgent (@langchain/core ${v('@langchain/core')}, @langchain/openai ${v('@langchain/openai')})`,
    run: langchainCreateAgent,
  },
  {
    name: `LangChain classic ${v('@langchain/classic')} AgentExecutor, streamRunnable default (true; model call not streamed)`,
    run: classicStreaming,
  },
  { name: `LangChain classic ${v('@langchain/classic')} AgentExecutor, streamRunnable: false`, run: classicInvoke },
  { name: `Vercel AI SDK ${v('ai')} generateText (@ai-sdk/openai ${v('@ai-sdk/openai')})`, run: aiSdk },
  { name: `OpenAI Agents SDK ${v('@openai/agents')}`, run: openAIAgents },
].map((contender) => ({ ...contender, times: [] as number[], cpu: [] as number[] }));

// One checked run of each, looking at what was sent: the same tools, tool choice required.
for (const contender of contenders) {
  inspecting = [];
  requests = 0;
  const answer = await contender.run();
  const bodies = inspecting as { tool_choice?: unknown; tools?: { function: { name: string } }[]; stream?: boolean }[];
  inspecting = null;
  const choices = bodies.map((body) => JSON.stringify(body.tool_choice));
  const names = bodies.map((body) =>
    (body.tools ?? [])
      .map((t) => t.function.name)
      .sort()
      .join(','),
  );
  if (
    answer !== '25' ||
    requests !== 3 ||
    choices.some((c) => c !== '"required"') ||
    names.some((n) => n !== 'add,final_answer,multiply')
  ) {
    throw new Error(
      `${contender.name}: answered ${answer} in ${requests} requests, tool_choice ${choices}, tools ${names}`,
    );
  }
  if (bodies.some((body) => body.stream)) console.log(`(${contender.name} sends stream: true)`);
}

// The order is shuffled every round (seeded, so reproducible): a contender that allocates much
// leaves garbage that the next one may pay to collect, and a fixed or reversed order would always
// put the same neighbour after it.
let seed = 8;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const shuffled = <T>(items: T[]) => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
};
for (let round = 0; round < warmup + runs; round++) {
  for (const contender of shuffled(contenders)) {
    const counted = async () => {
      requests = 0;
      const answer = await contender.run();
      return { answer, requests };
    };
    await measureRun(contender, counted, round >= warmup);
  }
}
server.stop();
// Each run with sinks writes 7 steps (3 model calls, 3 tool calls, the final answer): the inspected run and every timed one.
const stepsWritten = sinks.steps();
sinks.close();
if (stepsWritten !== 7 * (1 + warmup + runs))
  throw new Error(`the step log holds ${stepsWritten} steps, expected ${7 * (1 + warmup + runs)}`);
if (strangers.size > 0) throw new Error(`contacted other hosts than 127.0.0.1: ${[...strangers].join(', ')}`);

console.log(
  `Node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${runs} runs each after ${warmup} warm-up rounds, interleaved in a shuffled order; 3 model requests per run, all to 127.0.0.1.\n`,
);
printTable(contenders, 3);
