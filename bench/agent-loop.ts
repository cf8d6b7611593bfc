/**
 * `npm run bench`: the agent loop's own cost. Each run is three model turns against a loopback
 * server in its own process (the fake model's bench mode: test/support/fake-model/bench-mode.ts). Contenders run interleaved, round by round,
 * and every run's answer is checked, so that none can win by doing less. "Ours" runs alone, and
 * with the bot's own event sinks (step log and memory in SQLite, log lines; see bot-sinks.ts).
 *
 *   npm run bench [-- --runs 500 --warmup 100]
 *   npm run bench -- --only ours          # one contender alone (floor, ours, sinks): to profile it
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { OpenAI } from 'openai';
import { z } from 'zod';
import type { AgentEventSink } from '../src/agent/events.ts';
import { silentLogger } from '../src/agent/logger.ts';
import { createOpenAIModelClient } from '../src/model-servers/openai-model-client.ts';
import { defaultAgentSettings, runAgent } from '../src/agent/run-agent.ts';
import { buildToolRegistry } from '../src/agent/tool-registry.ts';
import { defineTool } from '../tools/define-tool.ts';
import { bareLoop, benchTask, startModelProcess } from './bare-loop.ts';
import { openBotSinks } from './bot-sinks.ts';
import { measureRun, printTable } from './measure.ts';
import { sized } from './smoke.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: sized('500', '3') },
    warmup: { type: 'string', default: sized('100', '1') },
    only: { type: 'string' },
  },
});
const runs = Number(values.runs);
const warmup = Number(values.warmup);

const server = await startModelProcess();
const { baseURL } = server;
const { model, systemPrompt, question } = benchTask;

// --- The floor: a bare loop on the openai client, no validation, no events. ---
const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });
const task = { model, systemPrompt, question };

// --- Ours: runAgent with zod tools, validation, events. ---
const numberArgs = z.object({ a: z.number(), b: z.number() });
const tools = buildToolRegistry([
  defineTool({ name: 'add', description: 'a + b', parameters: numberArgs, execute: ({ a, b }) => String(a + b) }),
  defineTool({ name: 'multiply', description: 'a × b', parameters: numberArgs, execute: ({ a, b }) => String(a * b) }),
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

async function ours(withSinks: boolean): Promise<{ answer: string; requests: number }> {
  let requests = 0;
  const countRequests: AgentEventSink = (event) => {
    if (event.type === 'model-call') requests += 1;
  };
  const result = await runAgent({
    model: modelClient,
    systemPrompt,
    history: [],
    input: [{ role: 'user', content: question }],
    tools,
    context,
    settings: defaultAgentSettings,
    onEvent: withSinks ? sinks.forRun(countRequests) : countRequests,
  });
  return { answer: result.answer?.answer ?? `(${result.status}: ${result.userMessage})`, requests };
}

// --- Ours with the bot's sinks: step log and memory in a SQLite file, log lines (bot-sinks.ts). ---
const sinks = await openBotSinks(model);

const contenders = [
  {
    name: 'floor: bare loop on the openai client',
    run: () => bareLoop(client, task),
    times: [] as number[],
    cpu: [] as number[],
  },
  { name: 'ours: runAgent', run: () => ours(false), times: [] as number[], cpu: [] as number[] },
  {
    name: "ours: runAgent + the bot's sinks (step log and memory in SQLite, log lines)",
    run: () => ours(true),
    times: [] as number[],
    cpu: [] as number[],
  },
];

// Every order of the three in turn, so that none always follows the same neighbour.
const orders = [
  [0, 1, 2],
  [2, 1, 0],
  [1, 2, 0],
  [0, 2, 1],
  [2, 0, 1],
  [1, 0, 2],
];
const chosen = values.only === undefined ? [0, 1, 2] : [['floor', 'ours', 'sinks'].indexOf(values.only)];
if (chosen[0] === -1) throw new Error(`--only takes floor, ours or sinks, not ${values.only}`);
for (let round = 0; round < warmup + runs; round++) {
  for (const index of orders[round % orders.length]!)
    if (chosen.includes(index)) await measureRun(contenders[index]!, contenders[index]!.run, round >= warmup);
}
server.stop();
// Each run with sinks writes 7 steps (3 model calls, 3 tool calls, the final answer).
const stepsWritten = sinks.steps();
sinks.close();
if (chosen.includes(2) && stepsWritten !== 7 * (warmup + runs))
  throw new Error(`the step log holds ${stepsWritten} steps, expected ${7 * (warmup + runs)}`);

console.log(
  `Node ${process.version}, ${cpus().length} cores; ${runs} runs each after ${warmup} warm-up rounds, interleaved; 3 model requests per run.\n`,
);
printTable(
  contenders.filter((_, index) => chosen.includes(index)),
  3,
);
