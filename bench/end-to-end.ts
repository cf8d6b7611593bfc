/**
 * `npm run bench:e2e`: the bot's own latency through the real discord.js client, the fake Discord
 * and a model that answers at once: from the moment a message is dispatched on the gateway to the
 * answer's REST call; and the Discord REST calls each run makes with 0, 1 and 3 tool calls.
 */
import { Events } from 'discord.js';
import { type BotWorld, startBotWorld } from '../test/support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../test/support/fake-model.ts';
import { openFirstThread } from './first-thread.ts';
import { quantile } from './statistics.ts';
import { sized } from './smoke.ts';

const runs = Number(process.env.RUNS ?? sized(200, 3));

// Hop by hop: each exchange's moments, taken where the message passes (all in this process, so
// on one clock). Marks are kept for the exchange under way; the first of each name counts.
let marks: Record<string, number> = {};
const mark = (name: string) => {
  marks[name] ??= performance.now();
};
// The model's HTTP request, as the openai client makes it (installed before the client exists).
const realFetch = globalThis.fetch;
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
  mark('model request sent');
  const response = await realFetch(input, init);
  mark('model response headers');
  return response;
};

const world: BotWorld = await startBotWorld({ toolPosts: 'all' });
const { discord, model } = world;
const client = world.bot.client;
client.on(Events.Raw, (packet: { t?: string }) => {
  if (packet.t === 'MESSAGE_CREATE') mark('gateway packet in discord.js');
});
client.prependListener(Events.MessageCreate, (message) => {
  if (!message.author.bot) mark('messageCreate emitted');
});
// The bot's own steps, seen where it calls its database (the store's methods are plain properties).
const { messages: storedMessages, runs: storedRuns } = world.store;
const wrap = <T extends object, K extends keyof T>(target: T, key: K, before: string | null, after: string | null) => {
  const original = target[key] as (...args: unknown[]) => unknown;
  target[key] = ((...args: unknown[]) => {
    if (before) mark(before);
    const result = original.apply(target, args);
    if (after) mark(after);
    return result;
  }) as T[K];
};
wrap(storedMessages, 'insert', null, 'user message stored');
wrap(storedMessages, 'iterateNewest', 'window load begins', null);
wrap(storedRuns, 'start', 'run starts (step log)', null);
// Every REST call the bot makes, when it asks discord.js for it (before the queue and the limits).
const rest = client.rest as unknown as {
  queueRequest(request: { method: string; fullRoute: string }): Promise<unknown>;
};
const queueRequest = rest.queueRequest.bind(rest);
rest.queueRequest = (request) => {
  mark(request.fullRoute.endsWith('/typing') ? 'typing asked of discord.js' : `${request.method} asked of discord.js`);
  return queueRequest(request);
};
const thread = await openFirstThread(world);

/** One message answered with `tools` tool calls; returns its latency, the REST calls it made and its moments. */
async function exchange(
  tools: number,
  index: number,
): Promise<{ latencyMs: number; restCalls: number; marks: Record<string, number> }> {
  marks = {};
  if (tools > 0)
    model.enqueue(
      toolCalls(
        ...Array.from({ length: tools }, (_, call) => ({
          name: 'calculator',
          arguments: { expression: `${index}+${call}` },
        })),
      ),
    );
  model.enqueue(finalAnswer(`Answer ${index}.`));
  const before = discord.requests.length;
  const modelBefore = model.attemptTimes.length;
  const started = performance.now();
  mark('start: the fake dispatches');
  await discord.userSays({ channelId: thread.id, author: 'ada', content: `question ${index}` });
  mark('frame written by the fake');
  const answer = await discord.waitFor(() =>
    discord.requests
      .slice(before)
      .find(
        (request) =>
          request.method === 'POST' &&
          (request.body as { content?: string } | undefined)?.content === `Answer ${index}.`,
      ),
  );
  await world.bot.queues.idle();
  const typing = discord.requests.slice(before).find((request) => request.path.endsWith('/typing'));
  const moments = {
    ...marks,
    'model request at the server': model.attemptTimes[modelBefore]!,
    'answer POST at the fake': answer.time,
    ...(typing ? { 'typing POST at the fake': typing.time } : {}),
  };
  return { latencyMs: answer.time - started, restCalls: discord.requests.length - before, marks: moments };
}

/** The hops of the answer's path, in order: from one moment to the next. */
const path = [
  'start: the fake dispatches',
  'frame written by the fake',
  'gateway packet in discord.js',
  'messageCreate emitted',
  'user message stored',
  'window load begins',
  'run starts (step log)',
  'model request sent',
  'model request at the server',
  'model response headers',
  'POST asked of discord.js',
  'answer POST at the fake',
];
const hopNotes: Record<string, string> = {
  'frame written by the fake': "the fake's own work: structuredClone, JSON, the socket write",
  'gateway packet in discord.js': 'WebSocket: loopback, frame parsing, JSON.parse in @discordjs/ws',
  'messageCreate emitted': 'discord.js: the Message object, caches',
  'user message stored': 'the bot: routing, the daily token budget (SQLite), storing the message (SQLite, token count)',
  'window load begins': "the bot: the thread's queue, the conversation and channel looked up",
  'run starts (step log)':
    'the bot: the memory window (SQLite, up to 400 rows), the typing indicator asked for, the system prompt',
  'model request sent': 'the bot: the run-start sinks (SQLite), the request built, the openai client',
  'model request at the server': 'the openai client and undici to the loopback server',
  'model response headers': "the scripted model's work (its OpenAI-spec check of the request) and the response",
  'POST asked of discord.js': 'the bot: response parsing, the loop, sinks (SQLite), rendering',
  'answer POST at the fake': "discord.js's REST queue and undici to the fake",
};

// Paced: Discord allows a bot 50 REST requests per second (discord.js enforces it), and each
// exchange makes 2; back to back, the bench would measure that limit, not the bot.
const pace = () => new Promise((resolve) => setTimeout(resolve, 60));
for (let index = 0; index < 20; index++) {
  await exchange(0, index); // warm-up
  await pace();
}
const latencies: number[] = [];
const hops: Record<string, number[]> = {};
const typingAfterMessage: number[] = [];
for (let index = 0; index < runs; index++) {
  const result = await exchange(0, 1000 + index);
  latencies.push(result.latencyMs);
  for (let hop = 1; hop < path.length; hop++)
    (hops[path[hop]!] ??= []).push(result.marks[path[hop]!]! - result.marks[path[hop - 1]!]!);
  typingAfterMessage.push(result.marks['typing POST at the fake']! - result.marks['messageCreate emitted']!);
  await pace();
}
const calls: Record<number, number> = {};
for (const tools of [0, 1, 3]) calls[tools] = (await exchange(tools, 5000 + tools)).restCalls;
await world.close();

console.log(
  `Node ${process.version}; ${runs} messages in one thread, one at a time (60 ms apart, under Discord's 50 requests/s), after 20 warm-up messages.\n`,
);
console.log('| measure | value |');
console.log('|---|--:|');
console.log(`| MESSAGE_CREATE → answer's REST call, p50 | ${quantile(latencies, 0.5).toFixed(2)} ms |`);
console.log(`| MESSAGE_CREATE → answer's REST call, p99 | ${quantile(latencies, 0.99).toFixed(2)} ms |`);
for (const tools of [0, 1, 3]) {
  const turns = tools === 0 ? 1 : 2;
  console.log(
    `| REST calls per run, ${tools} tool calls (${turns} model turns; target ≤ ${turns + 2}) | ${calls[tools]} |`,
  );
}

console.log('\nWhere the time goes, hop by hop (0 tool calls; each hop from the moment above it):\n');
console.log('| hop: until… | what happens in it | p50 ms | p90 ms | p99 ms |');
console.log('|---|---|--:|--:|--:|');
for (const hop of path.slice(1)) {
  const values = hops[hop]!;
  console.log(
    `| ${hop} | ${hopNotes[hop]} | ${quantile(values, 0.5).toFixed(2)} | ${quantile(values, 0.9).toFixed(2)} | ${quantile(values, 0.99).toFixed(2)} |`,
  );
}
console.log(
  `| (total) | | ${quantile(latencies, 0.5).toFixed(2)} | ${quantile(latencies, 0.9).toFixed(2)} | ${quantile(latencies, 0.99).toFixed(2)} |`,
);
console.log(
  `| (beside it) typing POST at the fake, after messageCreate | sent without waiting, so not on the answer's path | ${quantile(typingAfterMessage, 0.5).toFixed(2)} | ${quantile(typingAfterMessage, 0.9).toFixed(2)} | ${quantile(typingAfterMessage, 0.99).toFixed(2)} |`,
);
