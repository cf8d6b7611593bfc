/**
 * `npm run bench:schedules`: SCHEDULES (1,000) scheduled runs across SERVERS (100) servers, all due
 * at the same minute, through the real bot in-process (discord.js against the fake Discord, an echo
 * model answering after 260 ms, MAX_CONCURRENT_RUNS 4). Twice: once straight through, once with the
 * bot stopped at once (runs in flight aborted, as SIGTERM past its grace does) when half the
 * headers are posted, and started again on the same database. For each: when the last answer
 * reached Discord, the REST calls and the 429s Discord answered, the most model
 * requests at once, and the counts that say none ran twice and none was lost (headers, threads,
 * answers, claims, each one per schedule).
 *
 * Then the same under a SIGKILL loop (bench/schedule-kill-loop.ts): `npm start`'s bot as a real
 * process, killed KILLS (5) times at seeded moments of the work (KILL_SEED) and started again on the
 * same database, then left to finish. The package script builds dist/ first: the process is the
 * compiled bot, as `npm start` runs it.
 */
import { type BotWorld, startBotWorld } from '../test/support/bot-harness.ts';
import { startEchoModel } from '../test/support/fake-model.ts';
import { addDueDigests, digestPlaces, seenDigests } from '../test/support/schedule-kill-loop.ts';
import { killLoopRound, type ScheduleRoundResult } from './schedule-kill-loop.ts';
import { sized } from './smoke.ts';

const schedules = Number(process.env.SCHEDULES ?? sized(1000, 20));
const servers = Number(process.env.SERVERS ?? sized(100, 4));
const kills = Number(process.env.KILLS ?? sized(5, 2));
const seed = Number(process.env.KILL_SEED ?? 1);

/** A world of `servers` servers, each `#general` with its share of schedules, every one due now. */
async function worldWithSchedules(modelUrl: string): Promise<BotWorld> {
  const world = await startBotWorld(
    { toolPosts: 'off' },
    {},
    { baseURL: modelUrl, provider: 'openai' },
    {
      schedulerIntervalMs: 3_600_000,
    },
  );
  const places = digestPlaces(world.discord, servers);
  // The bot learns of the new servers at its next session.
  await world.restart();
  addDueDigests(world.store, world.discord, places, schedules, Date.now());
  return world;
}

async function round(withRestart: boolean): Promise<ScheduleRoundResult> {
  const model = await startEchoModel({ latencyMs: 260, streamPieces: 1 });
  const world = await worldWithSchedules(model.baseURL);
  const { discord } = world;
  try {
    const before = discord.requests.length;
    const start = performance.now();
    const headerPosts = () => seenDigests(discord).headers;
    const passes = [world.bot.scheduler.tick()];
    if (withRestart) {
      await discord.waitFor(() => headerPosts().length >= schedules / 2, {
        what: 'half the headers',
        timeoutMs: 600_000,
      });
      await world.restart({ graceMs: 0 });
      passes.push(world.bot.scheduler.tick());
    }
    await Promise.all(passes);
    const answeredThreads = () => {
      const threads = new Set(discord.threads().map((thread) => thread.id));
      return new Set(
        discord
          .botMessages()
          .filter((message) => threads.has(message.channel_id))
          .map((message) => message.channel_id),
      );
    };
    await discord.waitFor(() => answeredThreads().size >= schedules && answeredThreads(), {
      what: 'every answer',
      timeoutMs: 900_000,
    });
    await world.bot.queues.idle();
    const requests = discord.requests.slice(before);
    const posts = requests.filter((request) => request.method === 'POST' && request.path.endsWith('/messages'));
    const headers = headerPosts();
    const names = headers.map((message) => /\*\*(.+)\*\*/.exec(message.content)![1]);
    return {
      lastAnswerMs: Math.max(...posts.map((request) => request.time)) - start,
      restCalls: requests.length,
      rateLimited: requests.filter((request) => request.status === 429).length,
      maxModelInFlight: model.counts().maxInFlight,
      headers: headers.length,
      headersTwice: names.length - new Set(names).size,
      claims: Number(world.store.db.prepare('SELECT count(*) FROM schedule_runs').pluck().get()),
      answered: answeredThreads().size,
    };
  } finally {
    await world.close();
    await model.close();
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const rows: [string, ScheduleRoundResult][] = [
  ['straight through', await round(false)],
  ['stopped at half the headers, started again', await round(true)],
];
console.log(`${schedules} schedules across ${servers} servers, all due at once; the echo model answers in 260 ms\n`);
console.log(
  '| | last answer | REST calls | 429s | model requests at once | headers | headers twice | claims | answered |',
);
console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const [name, result] of rows)
  console.log(
    `| ${name} | ${seconds(result.lastAnswerMs)} | ${result.restCalls} | ${result.rateLimited} | ${result.maxModelInFlight} | ${result.headers} | ${result.headersTwice} | ${result.claims} | ${result.answered} |`,
  );
const killed = await killLoopRound({ schedules, servers, kills, seed });
console.log(
  `\nUnder a SIGKILL loop: the bot a real process, SIGKILLed ${kills} times (seed ${seed}), then left to finish\n`,
);
console.log(
  '| last answer | REST calls | 429s | model requests at once | headers | headers twice | claims | claimed twice | answered | answered twice | given up |',
);
console.log('|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
console.log(
  `| ${seconds(killed.lastAnswerMs)} | ${killed.restCalls} | ${killed.rateLimited} | ${killed.maxModelInFlight} | ${killed.headers} | ${killed.headersTwice} | ${killed.claims} | ${killed.claimedTwice} | ${killed.answered} | ${killed.outcomesTwice} | ${killed.givenUp} |`,
);
console.log(`\nkilled at: ${killed.killedAt.join('; ')}`);
const broken = rows
  .filter(([, result]) => result.headersTwice > 0 || result.claims !== schedules || result.answered !== schedules)
  .map(([name]) => name);
const killedLost = [killed.headers, killed.claims, killed.answered].some((count) => count !== schedules);
if (killedLost || killed.headersTwice + killed.claimedTwice + killed.outcomesTwice > 0)
  broken.push('under a SIGKILL loop');
if (broken.length > 0) {
  console.error(`none twice, none lost: broken in ${broken.join(', ')}`);
  process.exitCode = 1;
}
