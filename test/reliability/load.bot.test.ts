/**
 * Load: a burst of LOAD_BURST messages (50) into one thread, and LOAD_THREADS conversations
 * started at once (100 in CI, 500 at full size: discord.js keeps to Discord's 50 requests a second,
 * and each conversation takes three, so 500 take half a minute). The bot runs as `npm start` in a
 * child process with --expose-gc, so that its heap is measured alone, after full collections,
 * apart from the fakes in this process.
 *
 * "Answered" means: every message is stored, and covered by a run whose answer was delivered
 * (messages that arrive during a run are answered together by the next one, up to 20 a batch).
 *
 * The heap margin: after the load, the heap may exceed its size after warm-up by at most
 * 8 MB + 16 KB per conversation started. What legitimately stays is bounded caches: discord.js's
 * (each thread's channel object and its latest messages, until Discord archives the thread and
 * the sweeper drops it; 200 messages a channel) and @discordjs/rest's per-route queues (swept
 * after an hour idle). Measured: +0.5 MB after the burst, +2.4 MB after 100 conversations, +6.1 MB
 * after 500 (about 12 KB each); anything kept per message or per run would show at these sizes.
 */
import { mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore, type Store } from '../../db/store.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { type ChatRequest, type ScriptedModel, finalAnswer, startScriptedModel } from '../support/fake-model.ts';

const burstSize = Number(process.env.LOAD_BURST ?? 50);
const threadCount = Number(process.env.LOAD_THREADS ?? 100);
const heapMarginBytes = (conversations: number) => 8 * 1024 * 1024 + conversations * 16 * 1024;
const probe = new URL('../support/heap-probe.mjs', import.meta.url).href;

let discord: FakeDiscord;
let model: ScriptedModel;
let bot: BotProcess | undefined;
let store: Store | undefined;
afterEach(async () => {
  store?.close();
  bot?.child.kill('SIGKILL');
  await bot?.exited;
  bot = undefined;
  store = undefined;
  await discord.close();
  await model.close();
});

async function startWorld(): Promise<{ databasePath: string }> {
  discord = await startFakeDiscord();
  model = await startScriptedModel();
  // Answers whatever it is asked, a little slowly, so that messages pile up during runs.
  model.otherwise((request: ChatRequest) => ({
    ...finalAnswer(`Answer to «${request.messages.findLast((message) => message.role === 'user')?.content}».`),
    delayMs: 20,
  }));
  const databasePath = join(mkdtempSync(join(tmpdir(), 'load-')), 'bot.sqlite');
  bot = await startBotProcess(
    discord,
    model,
    databasePath,
    { USER_MESSAGES_PER_MINUTE: '0', LOG_LEVEL: 'info' },
    { nodeArgs: ['--expose-gc', '--import', probe], ipc: true },
  );
  store = openStore(databasePath, { readOnly: true });
  return { databasePath };
}

async function heapUsed(): Promise<number> {
  const reply = once(bot!.child, 'message');
  bot!.child.send('heap');
  const [message] = (await reply) as [{ heapUsed: number }];
  return message.heapUsed;
}

const mention = () => `<@${discord.botUser.id}>`;

/** One conversation, answered: warms up every path (tokenizer, caches, prepared statements). */
async function warmUp(): Promise<number> {
  for (let index = 0; index < 3; index++) {
    await discord.userSays({
      channelId: discord.channels.random,
      author: 'bob',
      content: `${mention()} warm-up ${index}`,
      mentions: [discord.botUser.id],
    });
  }
  await discord.waitFor(
    () =>
      discord.threads().length === 3 &&
      discord.threads().every((thread) => discord.botMessages(thread.id).length === 1),
    { timeoutMs: 15_000, what: 'the warm-up answered' },
  );
  return heapUsed();
}

/** Stored user messages no delivered run covers, and runs not yet delivered. */
function unfinished(): { open: number; stored: number; going: number } {
  const rows = store!.db.prepare("SELECT id FROM messages WHERE role = 'user'").pluck().all() as number[];
  const runs = store!.db.prepare('SELECT trigger_message_ids, delivered_at FROM runs').all() as {
    trigger_message_ids: string;
    delivered_at: number | null;
  }[];
  const covered = new Set(
    runs.filter((run) => run.delivered_at !== null).flatMap((run) => JSON.parse(run.trigger_message_ids) as number[]),
  );
  return {
    open: rows.filter((id) => !covered.has(id)).length,
    stored: rows.length,
    going: runs.filter((run) => run.delivered_at === null).length,
  };
}

async function allAnswered(expectedStored: number, timeoutMs: number): Promise<void> {
  await discord.waitFor(
    () => {
      const state = unfinished();
      return state.stored === expectedStored && state.open === 0 && state.going === 0;
    },
    { timeoutMs, what: `all ${expectedStored} messages stored and answered (last: ${JSON.stringify(unfinished())})` },
  );
}

function expectHeapBack(before: number, after: number, conversations: number, what: string): void {
  const grown = after - before;
  console.info(
    `${what}: heap ${(before / 1048576).toFixed(1)} MB after warm-up, ${(after / 1048576).toFixed(1)} MB after the load (${grown >= 0 ? '+' : ''}${(grown / 1048576).toFixed(1)} MB; margin ${(heapMarginBytes(conversations) / 1048576).toFixed(1)} MB)`,
  );
  expect(grown).toBeLessThanOrEqual(heapMarginBytes(conversations));
}

it(
  `answers a burst of ${burstSize} messages into one thread, batched, none lost, and the heap comes back`,
  { timeout: 90_000 },
  async () => {
    await startWorld();
    const before = await warmUp();

    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mention()} burst`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.name === 'burst'));
    const said = [];
    for (let index = 0; index < burstSize; index++)
      said.push(
        await discord.userSays({
          channelId: thread.id,
          author: index % 2 ? 'ada' : 'bob',
          content: `burst message ${index}`,
        }),
      );
    await allAnswered(3 + 1 + burstSize, 60_000);

    const conversation = store!.conversations.byKey(`discord:${thread.id}`)!;
    const runs = store!.db
      .prepare('SELECT trigger_message_ids FROM runs WHERE conversation_id = ? ORDER BY started_at, rowid')
      .pluck()
      .all(conversation.id) as string[];
    const batches = runs.map((ids) => (JSON.parse(ids) as number[]).length);
    console.info(`burst of ${burstSize}: ${runs.length} runs, batches of ${batches.join(', ')}`);
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(1 + burstSize);
    expect(Math.max(...batches)).toBeLessThanOrEqual(20);
    // Every message stored once, in order; one answer per run.
    const stored = store!.db
      .prepare("SELECT discord_message_id FROM messages WHERE conversation_id = ? AND role = 'user' ORDER BY id")
      .pluck()
      .all(conversation.id);
    expect(stored).toEqual([thread.id, ...said.map((message) => message.id)]);
    expect(discord.botMessages(thread.id)).toHaveLength(runs.length);
    // The last answer answers the last message.
    const last = burstSize - 1;
    expect(discord.botMessages(thread.id).at(-1)!.content).toBe(
      `Answer to «${last % 2 ? 'Ada' : 'Bob'}: burst message ${last}».`,
    );

    expectHeapBack(before, await heapUsed(), 1, `burst of ${burstSize}`);
  },
);

it(
  `answers ${threadCount} conversations started at once, none lost, and the heap comes back`,
  { timeout: 60_000 + threadCount * 200 },
  async () => {
    await startWorld();
    const before = await warmUp();

    for (let index = 0; index < threadCount; index++) {
      await discord.userSays({
        channelId: index % 2 ? discord.channels.general : discord.channels.random,
        author: index % 3 ? 'ada' : 'bob',
        content: `${mention()} conversation ${index}`,
        mentions: [discord.botUser.id],
      });
    }
    await allAnswered(3 + threadCount, 30_000 + threadCount * 150);

    const threads = discord.threads().filter((thread) => thread.name.startsWith('conversation '));
    expect(threads).toHaveLength(threadCount);
    for (const thread of threads) {
      const index = Number(thread.name.split(' ')[1]);
      expect(discord.botMessages(thread.id).map((message) => message.content)).toEqual([
        `Answer to «${index % 3 ? 'Ada' : 'Bob'}: ${thread.name}».`,
      ]);
    }
    expect(model.maxConcurrent).toBeLessThanOrEqual(4);

    expectHeapBack(before, await heapUsed(), threadCount, `${threadCount} conversations`);
  },
);
