/**
 * Hostile model output, fuzzed: seeded cases of bad model turns (hostile-turns.ts) go through the
 * whole bot (the real discord.js and openai clients against the fakes, real SQLite). Each seed is
 * one thread of one to three messages; after each, the thread, the requests and the database are
 * checked. `FUZZ_RUNS` sets how many seeds run (150 by default; 1,000 for the full campaign),
 * `FUZZ_SEED` replays one seed, `FUZZ_FIRST_SEED` moves the window of seeds.
 *
 *   FUZZ_RUNS=1000 npx vitest run test/reliability/fuzz-model-output.test.ts
 *   FUZZ_SEED=37 npx vitest run test/reliability/fuzz-model-output.test.ts
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderAnswer } from '../../src/posts/render.ts';
import { splitMessage } from '../../src/posts/split-message.ts';
import { loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';
import { type BotWorld, mentionOf, startBotWorld } from '../support/bot-harness.ts';
import type { FakeMessage } from '../support/fake-discord.ts';
import { chatRequestProblems } from '../support/openai-conformance.ts';
import { apiError, finalAnswer, toolCalls } from '../support/fake-model.ts';
import { type HostileCase, hostileCase } from './hostile-turns.ts';
import { conversationProblems, databaseProblems } from './invariants.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 150);
const firstSeed = Number(process.env.FUZZ_FIRST_SEED ?? 1);
const seeds = process.env.FUZZ_SEED
  ? [Number(process.env.FUZZ_SEED)]
  : Array.from({ length: runs }, (_, index) => firstSeed + index);
const maxSteps = 4;
const suppressEmbeds = 4;

let world: BotWorld;
let counter: TokenCounter;
/** Requests beyond a message's script other than memory summaries (which follow a long answer: MEMORY_SUMMARY). */
const unexpected: string[] = [];
const startWorld = async () => {
  const started = await startBotWorld(
    { toolPosts: 'all' },
    { maxSteps, maxToolCallsPerTurn: 8, toolTimeoutMs: 5_000, runTimeoutMs: 30_000 },
    { maxRetries: 0 },
    { databaseTools: true },
  );
  // A summary call takes what is left of the message's hostile turns, and this once they are spent.
  started.model.otherwise((request) => {
    if (JSON.stringify(request.tool_choice ?? null).includes('write_summary'))
      return toolCalls({ name: 'write_summary', arguments: { summary: 'A hostile thread.' } });
    unexpected.push(`a request beyond the script: ${JSON.stringify(request.messages.at(-1)).slice(0, 200)}`);
    return apiError(400, 'not in the script');
  });
  return started;
};

beforeAll(async () => {
  counter = await loadTokenCounter('gpt-4.1-mini');
  world = await startWorld();
});
afterEach(async (context) => {
  // A failed seed may leave its world in any state: the next seed gets a fresh one.
  if (context.task.result?.state !== 'fail') return;
  world.model.drain();
  // A world stuck in a run is left behind rather than waited for.
  await Promise.race([world.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  world = await startWorld();
});
afterAll(async () => {
  // The bot still answers after every hostile case.
  world.model.drain();
  world.model.enqueue(finalAnswer('Still here.'));
  const asked = await world.discord.userSays({
    channelId: world.discord.channels.random,
    author: 'bob',
    content: `${mentionOf(world)} still there?`,
    mentions: [world.discord.botUser.id],
  });
  await world.discord.waitFor(
    () => world.discord.botMessages(asked.id).some((post) => post.content === 'Still here.'),
    { what: 'the follow-up answered', timeoutMs: 15_000 },
  );
  await world.bot.queues.idle();
  // Across the whole database, once: every run ended, every step in a run and finished.
  expect(databaseProblems(world.store.db)).toEqual([]);
  await world.close();
}, 60_000);

describe('hostile model output, fuzzed through the whole bot', () => {
  for (const seed of seeds) {
    it(`seed ${seed} (replay: FUZZ_SEED=${seed})`, async () => {
      const hostile = hostileCase(seed, {
        maxSteps,
        ids: { user: world.discord.users.bob, role: world.discord.roles.moderator },
      });
      try {
        await runCase(hostile);
      } catch (error) {
        // The seed's number and what it sent, to replay and to read.
        const turns = hostile.messages.map(
          (message, index) => `  message ${index + 1}: ${message.turns.map((turn) => turn.kind).join(' → ')}`,
        );
        (error as Error).message =
          `seed ${seed} failed (replay: FUZZ_SEED=${seed} npx vitest run test/reliability/fuzz-model-output.test.ts)\n${turns.join('\n')}\n${(error as Error).message}`;
        throw error;
      }
    }, 60_000);
  }
});

/** Runs one case's messages in a new thread, one after the other, and checks what came of each. */
async function runCase(hostile: HostileCase): Promise<void> {
  const { discord, model } = world;
  const requestProblems: string[] = [];
  let threadId: string | undefined;
  for (const [index, message] of hostile.messages.entries()) {
    model.drain();
    model.enqueue(
      ...message.turns.map((turn, turnIndex) => (body: unknown) => {
        const problems = chatRequestProblems(body);
        if (problems.length > 0)
          requestProblems.push(
            `message ${index + 1}, model call ${turnIndex + 1} (before a turn of ${turn.kind}): ${problems.slice(0, 5).join('; ')}`,
          );
        return turn.reply;
      }),
    );
    const requestsBefore = discord.requests.length;
    const trigger: FakeMessage =
      threadId === undefined
        ? await discord.userSays({
            channelId: discord.channels.general,
            author: 'ada',
            content: `${mentionOf(world)} ${message.text}`,
            mentions: [discord.botUser.id],
          })
        : await discord.userSays({ channelId: threadId, author: 'ada', content: message.text });
    threadId ??= trigger.id;
    const run = await discord.waitFor(() => deliveredRun(trigger.id), {
      what: `the run for message ${index + 1} delivered`,
      timeoutMs: 30_000,
    });
    await world.bot.queues.idle();
    const kinds = message.turns.map((turn) => turn.kind).join(', ');
    const context = `message ${index + 1} (turns: ${kinds})`;
    expect(run.count, `${context}: one run for the message`).toBe(1);
    checkPosts(threadId, trigger, index === 0, run.id, context);
    checkMentions(discord.requests.slice(requestsBefore), context);
    // What the fake Discord saw break its spec or our rules (a message too long, say).
    expect(discord.takeProblems(), `${context}: Discord's spec and our rules`).toEqual([]);
  }
  model.drain();
  expect(requestProblems, 'every model request was valid').toEqual([]);
  expect(unexpected.splice(0), 'no model request beyond the script').toEqual([]);
  checkDatabase(threadId!);
}

/** The run of the conversation that answered this Discord message, once delivered. */
function deliveredRun(discordMessageId: string) {
  const stored = world.store.db
    .prepare('SELECT id, conversation_id FROM messages WHERE discord_message_id = ?')
    .get(discordMessageId) as { id: number; conversation_id: number } | undefined;
  if (!stored) return undefined;
  const runs = world.store.db
    .prepare(
      `SELECT * FROM runs WHERE EXISTS (SELECT 1 FROM json_each(runs.trigger_message_ids) WHERE value = ?) ORDER BY started_at, rowid`,
    )
    .all(stored.id) as { id: string; status: string; delivered_at: number | null; posted_message_ids: string }[];
  const last = runs.at(-1);
  return last && last.delivered_at !== null && last.status !== 'running' ? { ...last, count: runs.length } : undefined;
}

/** Exactly one answer (or one notice of why there is none) for the message, after its tool posts. */
function checkPosts(threadId: string, trigger: FakeMessage, first: boolean, runId: string, context: string): void {
  const after = world.discord.botMessages(threadId).filter((post) => BigInt(post.id) > BigInt(trigger.id));
  const answers = after.filter((post) => ((post.flags ?? 0) & suppressEmbeds) === 0);
  const tools = after.filter((post) => ((post.flags ?? 0) & suppressEmbeds) !== 0);
  const run = world.store.runs.byId(runId)!;
  const posted = new Set(JSON.parse(run.posted_message_ids) as string[]);
  expect(
    after.every((post) => posted.has(post.id)),
    `${context}: every post belongs to the run`,
  ).toBe(true);
  expect(answers.length, `${context}: an answer was posted`).toBeGreaterThan(0);
  // Tool posts come before the answer, never after it.
  expect(
    tools.every((post) => BigInt(post.id) < BigInt(answers[0]!.id)),
    `${context}: tool posts before the answer`,
  ).toBe(true);
  // Whatever the model sent is the model's fault, logged as such: never an internal error of ours.
  expect(run.error_code, `${context}: the run's cause (${run.error})`).not.toBe('internal');
  const answerStep = world.store.steps.ofRun(runId).find((step) => step.kind === 'final-answer');
  if (run.status === 'answered') {
    expect(answerStep, `${context}: an answered run has its answer in the step log`).toBeDefined();
    expect(
      answers.map((post) => post.content),
      `${context}: the answer, whole, once`,
    ).toEqual(splitMessage(renderAnswer(JSON.parse(answerStep!.result!))));
  } else {
    expect(answers, `${context}: one notice for a run without an answer (${run.status})`).toHaveLength(1);
    expect(answers[0]!.content.length).toBeGreaterThan(0);
  }
  // The first answer in a thread follows the question, which is in the channel; later ones reply to it.
  if (first) expect(answers[0]!.message_reference, context).toBeUndefined();
  else
    expect(answers[0]!.message_reference?.message_id, `${context}: the answer replies to the message`).toBe(trigger.id);
  for (const post of after) {
    expect(post.content.length, `${context}: a post fits in a Discord message`).toBeLessThanOrEqual(2000);
    expect([post.mentions, post.mention_roles, post.mention_everyone], `${context}: a post pings nobody`).toEqual([
      [],
      [],
      false,
    ]);
  }
}

/** Every message the bot sent or edited said who may be pinged: nobody. */
function checkMentions(requests: typeof world.discord.requests, context: string): void {
  for (const request of requests) {
    if (!['POST', 'PATCH'].includes(request.method) || !/\/messages(\/\d+)?$/.test(request.path)) continue;
    expect(
      (request.body as { allowed_mentions?: unknown }).allowed_mentions,
      `${context}: ${request.method} ${request.path} says who may be pinged`,
    ).toEqual({ parse: [], replied_user: false });
  }
}

/** The step log and the memory of the case's conversation, and the database as a whole. */
function checkDatabase(threadId: string): void {
  const conversation = world.store.conversations.byKey(`discord:${threadId}`);
  expect(conversation, 'the conversation is stored').toBeDefined();
  expect(conversationProblems(world.store.db, conversation!.id, counter), 'database invariants').toEqual([]);
}
