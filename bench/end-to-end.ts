/**
 * `npm run bench:e2e`: the bot's own latency through the real discord.js client, the fake Discord
 * and a model that answers at once: from the moment a message is dispatched on the gateway to the
 * answer's REST call; and the Discord REST calls each run makes with 0, 1 and 3 tool calls.
 */
import { type BotWorld, startBotWorld } from '../test/support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../test/support/scripted-model.ts';

const runs = Number(process.env.RUNS ?? 200);
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

const world: BotWorld = await startBotWorld({ toolPosts: 'all' });
const { discord, model } = world;
model.enqueue(finalAnswer('Ready.'));
await discord.userSays({ channelId: discord.channels.general, author: 'ada', content: `<@${discord.botUser.id}> start`, mentions: [discord.botUser.id] });
const thread = await discord.waitFor(() => discord.threads()[0]);
await discord.waitFor(() => discord.botMessages(thread.id).length === 1);

/** One message answered with `tools` tool calls; returns its latency and the REST calls it made. */
async function exchange(tools: number, index: number): Promise<{ latencyMs: number; restCalls: number }> {
  if (tools > 0) model.enqueue(toolCalls(...Array.from({ length: tools }, (_, call) => ({ name: 'calculator', arguments: { expression: `${index}+${call}` } }))));
  model.enqueue(finalAnswer(`Answer ${index}.`));
  const before = discord.requests.length;
  const started = performance.now();
  await discord.userSays({ channelId: thread.id, author: 'ada', content: `question ${index}` });
  const answer = await discord.waitFor(() =>
    discord.requests.slice(before).find((request) => request.method === 'POST' && (request.body as { content?: string } | undefined)?.content === `Answer ${index}.`),
  );
  await world.bot.queues.idle();
  return { latencyMs: answer.time - started, restCalls: discord.requests.length - before };
}

// Paced: Discord allows a bot 50 REST requests per second (discord.js enforces it), and each
// exchange makes 2; back to back, the bench would measure that limit, not the bot.
const pace = () => new Promise((resolve) => setTimeout(resolve, 60));
for (let index = 0; index < 20; index++) {
  await exchange(0, index); // warm-up
  await pace();
}
const latencies: number[] = [];
for (let index = 0; index < runs; index++) {
  latencies.push((await exchange(0, 1000 + index)).latencyMs);
  await pace();
}
const calls: Record<number, number> = {};
for (const tools of [0, 1, 3]) calls[tools] = (await exchange(tools, 5000 + tools)).restCalls;
await world.close();

console.log(`Node ${process.version}; ${runs} messages in one thread, one at a time (60 ms apart, under Discord's 50 requests/s), after 20 warm-up messages.\n`);
console.log('| measure | value |');
console.log('|---|--:|');
console.log(`| MESSAGE_CREATE → answer's REST call, p50 | ${quantile(latencies, 0.5).toFixed(2)} ms |`);
console.log(`| MESSAGE_CREATE → answer's REST call, p99 | ${quantile(latencies, 0.99).toFixed(2)} ms |`);
for (const tools of [0, 1, 3]) {
  const turns = tools === 0 ? 1 : 2;
  console.log(`| REST calls per run, ${tools} tool calls (${turns} model turns; target ≤ ${turns + 2}) | ${calls[tools]} |`);
}
