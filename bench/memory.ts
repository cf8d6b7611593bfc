/**
 * `npm run bench:memory`: appending to a conversation's memory, and loading its window, for
 * conversations of 1,000, 10,000 and 100,000 messages, in a real SQLite file (WAL,
 * synchronous=NORMAL), as the bot runs it. The window load should not grow with the thread's age.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../db/store.ts';
import { conversationMemory } from '../src/memory/conversation-memory.ts';
import { loadTokenCounter } from '../src/memory/token-counter.ts';
import { quantile } from './statistics.ts';
import { sized } from './smoke.ts';

const sizes = sized([1_000, 10_000, 100_000], [200]);
const loads = sized(300, 3);
const counter = await loadTokenCounter('gpt-4.1-mini');
const settings = { tokenBudget: 8000, messageTokenCap: 1500 };
const sentence = 'Could you check what the build server said about the failing test in the payments module yesterday?';

console.log(
  `Node ${process.version}; window budget ${settings.tokenBudget} tokens; ${loads} loads per size, interleaved across sizes.\n`,
);

// First build every thread (timing the appends), then time the loads round-robin, so that each
// size is measured in the same process state (heap size and JIT warmth otherwise differ by 1.5x).
const threads = sizes.map((size) => {
  const folder = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  const store = openStore(join(folder, 'bot.sqlite'));
  const memory = conversationMemory(store, counter, settings);
  // Another conversation's messages are interleaved, as in a busy server.
  const conversation = store.conversations.ensure({
    key: 'discord:bench',
    title: 'bench',
    guildId: 'g',
    channelId: 'c',
    startedById: 'u',
    startedByName: 'Ada',
  });
  const other = store.conversations.ensure({
    key: 'discord:other',
    title: 'other',
    guildId: 'g',
    channelId: 'c',
    startedById: 'u',
    startedByName: 'Bob',
  });
  const started = performance.now();
  for (let index = 0; index < size; index++) {
    memory.recordUserMessage(index % 4 === 3 ? other : conversation, {
      authorId: 'u',
      authorName: 'Ada',
      content: `${index}: ${sentence}`,
      discordMessageId: `m${index}`,
    });
  }
  const appendRate = size / ((performance.now() - started) / 1000);
  return {
    size,
    folder,
    store,
    memory,
    conversationId: conversation.id,
    appendRate,
    times: [] as number[],
    windowSize: 0,
  };
});

for (let round = 0; round < loads + 30; round++) {
  for (const thread of round % 2 === 0 ? threads : [...threads].reverse()) {
    const before = performance.now();
    const { history } = thread.memory.loadWindow(thread.conversationId, []);
    const elapsed = performance.now() - before;
    if (round >= 30) thread.times.push(elapsed);
    thread.windowSize = history.length;
  }
}

console.log(
  '| messages in the thread | append, messages/s | window load median ms | p90 ms | messages in window | × the 1,000 load |',
);
console.log('|--:|--:|--:|--:|--:|--:|');
const baseline = quantile(threads[0]!.times, 0.5);
for (const thread of threads) {
  const median = quantile(thread.times, 0.5);
  console.log(
    `| ${thread.size.toLocaleString('en-US')} | ${Math.round(thread.appendRate).toLocaleString('en-US')} | ${median.toFixed(3)} | ${quantile(thread.times, 0.9).toFixed(3)} | ${thread.windowSize} | ${(median / baseline).toFixed(2)} |`,
  );
  thread.store.close();
  rmSync(thread.folder, { recursive: true, force: true });
}
