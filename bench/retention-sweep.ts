/**
 * `npm run bench:retention`: does a retention sweep of 100,000 expired rows hold up answers?
 * The real discord.js client, the fake Discord and a model that answers at once, in one process
 * with the sweeper `npm start` runs (its batches and its rests between them). Measured: each answer's latency (the user's message
 * dispatched to the answer's POST at the fake) with no sweep, then while the sweep runs; and the
 * longest time one sweep batch held the write lock (what an answer's write could wait).
 */
import { startRetentionSweeper } from '../src/app/retention-sweeper.ts';
import { type BotWorld, startBotWorld } from '../test/support/bot-harness.ts';
import { finalAnswer } from '../test/support/fake-model.ts';
import { recordingLogger } from '../test/support/recording-logger.ts';
import { openFirstThread } from './first-thread.ts';
import { quantile } from './statistics.ts';
import { sized } from './smoke.ts';

const expiredRows = Number(process.env.ROWS ?? sized(100_000, 500));
const answers = Number(process.env.RUNS ?? sized(100, 3));

const world: BotWorld = await startBotWorld({ toolPosts: 'off' });
const { discord, model, store } = world;
const thread = await openFirstThread(world);

/** 100,000 messages of 200 days ago in a conversation of their own (not in the thread's window). */
function fillExpired(count: number): void {
  const old = Date.now() - 200 * 86_400_000;
  const conversation = store.db
    .prepare(`INSERT INTO conversations (key, title, guild_id, created_at) VALUES (?, 'old', 'g', ?)`)
    .run(`bench-old-${old}-${Math.random()}`, old).lastInsertRowid;
  const insert = store.db.prepare(
    `INSERT INTO messages (conversation_id, role, author_id, author_name, content, created_at, token_count)
     VALUES (?, 'user', 'u', 'Old', ?, ?, 12)`,
  );
  store.db.transaction(() => {
    for (let index = 0; index < count; index += 1)
      insert.run(conversation, `an old message, number ${index}, with a few words in it`, old + index);
  })();
}

let sequence = 0;
/** One question in the thread, answered at once by the model: its latency in ms. */
async function exchange(): Promise<number> {
  const content = `Answer ${(sequence += 1)}.`;
  model.enqueue(finalAnswer(content));
  const before = discord.requests.length;
  const started = performance.now();
  await discord.userSays({ channelId: thread.id, author: 'ada', content: `question ${sequence}` });
  const answer = await discord.waitFor(() =>
    discord.requests
      .slice(before)
      .find((request) => request.method === 'POST' && (request.body as { content?: string })?.content === content),
  );
  await world.bot.queues.idle();
  return answer.time - started;
}

const describe = (label: string, latencies: number[]) =>
  `${label.padEnd(26)} n=${String(latencies.length).padStart(4)}  p50 ${quantile(latencies, 0.5).toFixed(1)} ms  p99 ${quantile(latencies, 0.99).toFixed(1)} ms  max ${Math.max(...latencies).toFixed(1)} ms`;

// Warm up: the first answers pay for JIT and caches.
for (let index = 0; index < 20; index += 1) await exchange();
const quiet: number[] = [];
for (let index = 0; index < answers; index += 1) quiet.push(await exchange());

fillExpired(expiredRows);
const pagesBefore = store.db.pragma('page_count', { simple: true }) as number;
const during: number[] = [];
const { logger, lines } = recordingLogger();
const sweepStarted = performance.now();
const sweeper = startRetentionSweeper(store, { messageDays: 30, stepLogDays: null, imageDays: null }, logger);
const swept = () => lines.find((line) => line.msg?.startsWith('retention sweep'));
while (!swept()) during.push(await exchange());
sweeper.stop();
const sweepMs = swept()!.at - sweepStarted;
const { messages: sweptMessages, longestLockMs } = swept()!.fields as { messages: number; longestLockMs: number };

console.log(
  `retention sweep of ${sweptMessages} expired messages (${expiredRows} written), in ${sweepMs.toFixed(0)} ms`,
);
console.log(`longest write lock held by one batch: ${longestLockMs.toFixed(1)} ms`);
console.log(`file: ${pagesBefore} pages before, ${store.db.pragma('page_count', { simple: true }) as number} after`);
console.log(describe('answers, no sweep', quiet));
console.log(describe('answers during the sweep', during));
console.log(`p99 ratio (during / none): ${(quantile(during, 0.99) / quantile(quiet, 0.99)).toFixed(2)}×`);
await world.close();
