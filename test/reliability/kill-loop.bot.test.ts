/**
 * SIGKILL again and again: `npm start` as a child process is killed at chosen points of runs
 * (waiting for the model, between two tool steps, right after the answer is posted, between the
 * pieces of a split answer) and at seeded random moments, then started again on the same
 * database, KILL_CYCLES times (5 by default: each chosen point and one random; KILL_SEED picks the random moments). After every
 * restart, and at the end:
 * - no user message is lost: every one the fake Discord holds is in the messages table, and every
 *   stored one is covered by a run whose answer was delivered;
 * - answers come exactly once: every piece of every answer reached is posted once, and no bot
 *   message is posted twice;
 * - no tool call runs twice: each tool_call_id has one step, and `remind_me` (whose every run adds
 *   a row) left exactly as many reminders as it has finished steps.
 * test/discord/runs/crash.bot.test.ts kills once at each point with exact scripts; this loop keeps going,
 * with a model that answers whatever it is asked, so that no count depends on timing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore, type Store } from '../../db/store.ts';
import { renderAnswer } from '../../src/posts/render.ts';
import { splitMessage } from '../../src/posts/split-message.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import {
  type ChatRequest,
  type ScriptedModel,
  type ScriptedReply,
  finalAnswer,
  startScriptedModel,
  toolCalls,
} from '../support/fake-model.ts';
import { seededRandom } from '../support/seeded-random.ts';

const cycles = Number(process.env.KILL_CYCLES ?? 5);
const seed = Number(process.env.KILL_SEED ?? 1);

const fixedPoints = [
  'waiting for the model',
  'between tool steps',
  'right after the answer',
  'between pieces of a split answer',
] as const;
type KillPoint = (typeof fixedPoints)[number] | 'random';
const pointOf = (cycle: number): KillPoint => ([...fixedPoints, 'random', 'random'] as const)[cycle % 6]!;

/** The answer to a question: three pieces of ~1,900 characters when it asks for [long]. */
function answerTo(asked: string): string {
  if (!asked.includes('[long]')) return `Answer to «${asked}».`;
  return [1, 2, 3]
    .map((part) => `Part ${part} of the answer to «${asked}»: ${'lorem ipsum '.repeat(150).trim()}`)
    .join('\n\n');
}

const lastUser = (request: ChatRequest) => request.messages.findLastIndex((message) => message.role === 'user');

it(
  `survives ${cycles} SIGKILLs at chosen and random points of runs (seed ${seed}): exactly-once answers, no tool call run twice, no message lost`,
  { timeout: 60_000 + cycles * 30_000 },
  async () => {
    const rng = seededRandom(seed);
    const discord: FakeDiscord = await startFakeDiscord();
    const model: ScriptedModel = await startScriptedModel();
    const databasePath = join(mkdtempSync(join(tmpdir(), 'kill-loop-')), 'bot.sqlite');
    const env = { USER_MESSAGES_PER_MINUTE: '0', LOG_LEVEL: 'info' };
    let jitter = false;
    let callNumber = 0;

    /** The model: a tool call first when the question asks for [tool] and no result follows it yet, then the answer. */
    const respond = (request: ChatRequest): ScriptedReply => {
      const index = lastUser(request);
      const asked = request.messages[index]!.content ?? '';
      const delayMs = jitter ? Math.floor(rng() * 500) : 0;
      if (asked.includes('[tool]') && !request.messages.slice(index + 1).some((message) => message.role === 'tool')) {
        return {
          ...toolCalls({
            name: 'remind_me',
            arguments: { text: `about ${asked}`, in_minutes: 60, at: null },
            id: `call_kill_${++callNumber}`,
          }),
          delayMs,
        };
      }
      return { ...finalAnswer(answerTo(asked)), delayMs };
    };
    model.otherwise(respond);

    let bot: BotProcess = await startBotProcess(discord, model, databasePath, env);
    const store: Store = openStore(databasePath, { readOnly: true });
    const stderr: string[] = [];
    const errorLines: string[] = [];
    const kill = async () => {
      bot.child.kill('SIGKILL');
      await bot.exited;
      stderr.push(bot.stderr);
      errorLines.push(...bot.stdout.split('\n').filter((line) => /"level":(50|60)/.test(line)));
    };
    const threads: string[] = [];
    const killedAt: string[] = [];

    try {
      for (let cycle = 0; cycle < cycles; cycle++) {
        const point = pointOf(cycle);
        jitter = point === 'random';
        discord.latencyMs = jitter ? Math.floor(rng() * 50) : 0;
        const tags =
          point === 'between tool steps'
            ? ' [tool]'
            : point === 'between pieces of a split answer'
              ? ' [long]'
              : point === 'random'
                ? ['', ' [tool]', ' [long]', ' [tool] [long]'][Math.floor(rng() * 4)]!
                : '';
        const question = `q${cycle}${tags}`;
        const asks = () =>
          model.requests.filter((request) => request.messages[lastUser(request)]?.content?.includes(`q${cycle}`))
            .length;
        const threadPosts = (pattern: RegExp) =>
          discord.requests.filter((request) => request.method === 'POST' && pattern.test(request.path));
        if (point === 'waiting for the model') model.enqueue({ hang: true });
        if (point === 'between tool steps') model.enqueue(respond, { hang: true });
        if (point === 'right after the answer') {
          // The answer's POST takes effect, its response is held: the bot dies before it hears back.
          model.enqueue(
            (request) => (
              discord.holdNext({ method: 'POST', path: /^\/channels\/\d+\/messages$/, ms: 20_000 }),
              respond(request)
            ),
          );
        }
        if (point === 'between pieces of a split answer') {
          model.enqueue(
            (request) => (
              discord.holdNext({ method: 'POST', path: /^\/channels\/\d+\/messages$/, skip: 1, ms: 20_000 }),
              respond(request)
            ),
          );
        }

        await discord.userSays({
          channelId: discord.channels.general,
          author: 'ada',
          content: `<@${discord.botUser.id}> ${question}`,
          mentions: [discord.botUser.id],
        });
        const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.name === question), {
          timeoutMs: 10_000,
          what: `the thread of ${question}`,
        });
        threads.push(thread.id);
        const inThread = new RegExp(`^/channels/${thread.id}/messages$`);
        switch (point) {
          case 'waiting for the model':
            await discord.waitFor(() => asks() === 1, { timeoutMs: 10_000, what: 'the model asked' });
            break;
          case 'between tool steps':
            await discord.waitFor(() => asks() === 2, {
              timeoutMs: 10_000,
              what: 'the model asked again after the tool',
            });
            break;
          case 'right after the answer':
            await discord.waitFor(() => discord.botMessages(thread.id).length === 1, {
              timeoutMs: 10_000,
              what: 'the answer posted',
            });
            break;
          case 'between pieces of a split answer':
            await discord.waitFor(() => discord.botMessages(thread.id).length === 2, {
              timeoutMs: 10_000,
              what: 'two pieces posted',
            });
            break;
          case 'random': {
            // A point of the run: once the question is stored, at a random moment within 0.8 s.
            await discord.waitFor(() => store.messages.hasDiscordId(thread.id), {
              timeoutMs: 10_000,
              what: 'the question stored',
            });
            await new Promise((resolve) => setTimeout(resolve, Math.floor(rng() * 800)));
            break;
          }
        }
        await kill();
        killedAt.push(
          `${point}${point === 'random' ? ` (${question}: ${asks()} model calls, ${threadPosts(inThread).length} posts)` : ''}`,
        );

        // While it is down, people go on writing: in this thread and in an older one.
        await discord.userSays({ channelId: thread.id, author: 'bob', content: `w${cycle} sent while down` });
        if (cycle > 0)
          await discord.userSays({
            channelId: threads[Math.floor(rng() * (threads.length - 1))]!,
            author: 'ada',
            content: `x${cycle} to an older thread while down`,
          });

        bot = await startBotProcess(discord, model, databasePath, env);
        await settled(discord, store, [discord.channels.general, ...threads], `cycle ${cycle} (${point})`);
        checkInvariants(discord, store, threads);
      }
    } finally {
      await kill();
      store.close();
    }
    // Reported, for RELIABILITY.md: where the random kills landed.
    console.info(`kill-loop (seed ${seed}): ${killedAt.join('; ')}`);
    expect(stderr.filter((text) => text !== '')).toEqual([]);
    expect(errorLines).toEqual([]);
    await discord.close();
    await model.close();
  },
);

/** Every stored user message, with the ids of the messages no delivered run covers. */
function unanswered(store: Store): { stored: Map<string, string>; open: string[] } {
  const rows = store.db.prepare("SELECT id, discord_message_id, content FROM messages WHERE role = 'user'").all() as {
    id: number;
    discord_message_id: string;
    content: string;
  }[];
  const runs = store.db.prepare('SELECT trigger_message_ids, delivered_at FROM runs').all() as {
    trigger_message_ids: string;
    delivered_at: number | null;
  }[];
  const covered = new Set(
    runs.filter((run) => run.delivered_at !== null).flatMap((run) => JSON.parse(run.trigger_message_ids) as number[]),
  );
  return {
    stored: new Map(rows.map((row) => [row.discord_message_id, row.content])),
    open: rows.filter((row) => !covered.has(row.id)).map((row) => row.content),
  };
}

/** Waits until every message people wrote is stored and answered, and no run is left going. */
async function settled(discord: FakeDiscord, store: Store, channelIds: string[], what: string): Promise<void> {
  await discord.waitFor(
    () => {
      const written = channelIds
        .flatMap((id) => discord.messages(id))
        .filter((message) => !message.author.bot && (message.type === 0 || message.type === 19));
      const { stored, open } = unanswered(store);
      const missing = written.filter((message) => !stored.has(message.id));
      const going = store.db
        .prepare(
          "SELECT count(*) FROM runs WHERE status = 'running' OR (delivered_at IS NULL AND id NOT IN (SELECT resumed_from FROM runs WHERE resumed_from IS NOT NULL))",
        )
        .pluck()
        .get() as number;
      return missing.length === 0 && open.length === 0 && going === 0;
    },
    { timeoutMs: 30_000, what: `everything answered after ${what}` },
  );
}

function checkInvariants(discord: FakeDiscord, store: Store, threads: string[]): void {
  // Answers exactly once: every piece of every answer reached is in its thread once.
  const answers = store.db
    .prepare(
      "SELECT s.result, c.thread_id FROM steps s JOIN runs r ON r.id = s.run_id JOIN conversations c ON c.id = r.conversation_id WHERE s.kind = 'final-answer'",
    )
    .all() as { result: string; thread_id: string }[];
  for (const answer of answers) {
    const posted = discord.botMessages(answer.thread_id).map((message) => message.content);
    for (const piece of splitMessage(renderAnswer(JSON.parse(answer.result)))) {
      expect(
        posted.filter((content) => content.trim() === piece.trim()),
        `piece "${piece.slice(0, 60)}…" in ${answer.thread_id}`,
      ).toHaveLength(1);
    }
  }
  for (const thread of threads) {
    const contents = discord.botMessages(thread).map((message) => message.content);
    expect(contents.length, `bot messages in ${thread} are all different`).toBe(new Set(contents).size);
  }
  // Not even sent twice: Discord's nonce check lasts minutes, a restart may take longer.
  const nonces = discord.requests
    .filter((request) => request.method === 'POST' && /^\/channels\/\d+\/messages$/.test(request.path))
    .map((request) => (request.body as { nonce?: string }).nonce);
  expect(nonces.length, 'a message sent twice (same nonce)').toBe(new Set(nonces).size);
  // No tool call run twice.
  const repeated = store.db
    .prepare("SELECT tool_call_id FROM steps WHERE kind = 'tool-call' GROUP BY tool_call_id HAVING count(*) > 1")
    .pluck()
    .all();
  expect(repeated).toEqual([]);
  const reminders = store.db.prepare("SELECT prompt FROM schedules WHERE kind = 'reminder'").pluck().all() as string[];
  const finished = store.db
    .prepare("SELECT count(*) FROM steps WHERE kind = 'tool-call' AND tool_name = 'remind_me' AND status = 'ok'")
    .pluck()
    .get();
  expect(reminders).toHaveLength(finished as number);
  expect(reminders.length).toBe(new Set(reminders).size);
}
