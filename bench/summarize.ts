/**
 * `npm run bench:summarize`: `/summarize` over MESSAGES (2,000) messages of #general, through the
 * real bot in-process, discord.js and the fake Discord, the scripted model answering each call at
 * once (its figures are the bot's own work, not a model's). Reports: the model calls (pieces and
 * merges), the prompt tokens sent (counted with the bot's encoding on the requests' text, as the
 * fake model's usage is a fixed figure), the REST calls that read the history, the time from the
 * command to the summary, and the heap while reading: sampled every 5 ms during the run, against a
 * run over a quarter of the messages, so that "flat" is a figure (the history is read a page at a
 * time, uncached; what grows with the span is the transcript the model is sent).
 */
import { loadTokenCounter } from '../src/memory/token-counter.ts';
import { type BotWorld, startBotWorld } from '../test/support/bot-harness.ts';
import { toolCalls } from '../test/support/fake-model.ts';
import { sized } from './smoke.ts';

const messages = Number(process.env.MESSAGES ?? sized(2000, 120));
const windowTokens = Number(process.env.WINDOW ?? 8000);

interface Result {
  messages: number;
  calls: number;
  merges: number;
  promptTokens: number;
  historyReads: number;
  ms: number;
  heapStartMiB: number;
  heapPeakMiB: number;
}

const mib = (bytes: number) => bytes / 1024 / 1024;

async function once(count: number): Promise<Result> {
  const world: BotWorld = await startBotWorld(
    { summarizeMaxMessages: count, userMessagesPerMinute: 0 },
    {},
    {},
    { memory: { tokenBudget: windowTokens } },
  );
  const { discord, model } = world;
  try {
    const general = discord.channels.general;
    for (let index = 1; index <= count; index++)
      await discord.userSays({
        channelId: general,
        author: index % 3 === 0 ? 'ada' : 'bob',
        content: `message ${index}: the release train, its tests, and who reviews what before Friday (${index % 7} of 7)`,
      });
    model.otherwise((request) => {
      const merge = String(request.messages.at(-1)?.content).startsWith('Part 1:');
      return toolCalls({
        name: 'write_catch_up',
        arguments: { summary: `${merge ? 'Merged' : 'Piece'}: Bob and Ada planned the release (#1, #${count}).` },
      });
    });
    globalThis.gc?.();
    const heapStart = process.memoryUsage().heapUsed;
    let heapPeak = heapStart;
    const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 5);
    const before = discord.requests.length;
    const started = performance.now();
    const asked = await discord.userRunsCommand({
      name: 'summarize',
      author: 'ada',
      channelId: general,
      options: { since: '1d' },
    });
    await asked.waitForReply((reply) => reply.content.includes('Merged') || reply.content.includes('Piece'), {
      timeoutMs: 300_000,
    });
    const ms = performance.now() - started;
    clearInterval(sampler);
    const counter = await loadTokenCounter('gpt-4.1-mini');
    const promptTokens = model.requests
      .map((request) => request.messages.map((message) => String(message.content)).join('\n'))
      .reduce((sum, text) => sum + counter.count(text), 0);
    return {
      messages: count,
      calls: model.requests.length,
      merges: model.requests.filter((request) => String(request.messages.at(-1)?.content).startsWith('Part 1:')).length,
      promptTokens,
      historyReads: discord.requests
        .slice(before)
        .filter((request) => request.method === 'GET' && request.path === `/channels/${general}/messages`).length,
      ms,
      heapStartMiB: mib(heapStart),
      heapPeakMiB: mib(heapPeak),
    };
  } finally {
    await world.close();
  }
}

// A first, small run loads what every run after it shares (the token encoding, the code): not measured.
await once(10);
const results = [await once(Math.max(10, Math.floor(messages / 4))), await once(messages)];
console.log(`/summarize, window ${windowTokens} tokens, the scripted model answering at once`);
console.log('| messages | model calls (merges) | prompt tokens sent | history GETs | time | heap: start → peak |');
console.log('|---|---|---|---|---|---|');
for (const result of results)
  console.log(
    `| ${result.messages} | ${result.calls} (${result.merges}) | ${result.promptTokens} | ${result.historyReads} | ${(result.ms / 1000).toFixed(2)} s | ${result.heapStartMiB.toFixed(1)} → ${result.heapPeakMiB.toFixed(1)} MiB (+${(result.heapPeakMiB - result.heapStartMiB).toFixed(1)}) |`,
  );
