/**
 * bench/schedules.ts's round under a SIGKILL loop: SCHEDULES due at once across SERVERS servers,
 * run by `npm start`'s bot as a real process (the compiled dist/main.js, as
 * test/reliability/schedule-kill-loop.bot.test.ts starts it), SIGKILLed at seeded moments of the
 * work (claims, headers, threads, runs, answers) and started again on the same database, KILLS
 * times; then left to finish. What the fakes saw and the database holds says whether each due time
 * ran once: one claim, one header, one thread, one outcome in it (its answer, or the notice of a run
 * the lifecycle gave up after several kills cut it off, as for any message).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../db/store.ts';
import type { BotProcess } from '../test/support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../test/support/fake-discord.ts';
import { startEchoModel } from '../test/support/fake-model.ts';
import {
  addDueDigests,
  digestPlaces,
  killAtSeededPoints,
  killBotProcess,
  seenDigests,
} from '../test/support/schedule-kill-loop.ts';
import { seededRandom } from '../test/support/seeded-random.ts';

export interface KillLoopRound {
  schedules: number;
  servers: number;
  kills: number;
  seed: number;
}

/** What a round of the schedules benches measures. */
export interface ScheduleRoundResult {
  /** From the first start to the last answer's POST, restarts included. */
  lastAnswerMs: number;
  restCalls: number;
  rateLimited: number;
  maxModelInFlight: number;
  headers: number;
  headersTwice: number;
  claims: number;
  answered: number;
}

export interface KillLoopResult extends ScheduleRoundResult {
  /** Schedules whose due time has more than one claim. */
  claimedTwice: number;
  /** Threads with more than one outcome (an answer posted twice). */
  outcomesTwice: number;
  /** Runs the lifecycle gave up after being cut off several times in a row (their thread says so). */
  givenUp: number;
  /** Where each kill fell: headers posted and threads answered then. */
  killedAt: string[];
}

/** The servers (the fake's own, then new ones) and their schedules, all due now, written before the first start. */
function seedSchedules(discord: FakeDiscord, databasePath: string, { schedules, servers }: KillLoopRound): void {
  const store = openStore(databasePath);
  addDueDigests(store, discord, digestPlaces(discord, servers), schedules, Date.now());
  store.close();
}

export async function killLoopRound(round: KillLoopRound): Promise<KillLoopResult> {
  const discord = await startFakeDiscord();
  const model = await startEchoModel({ latencyMs: 260, streamPieces: 1 });
  const folder = mkdtempSync(join(tmpdir(), 'bench-schedule-kills-'));
  const databasePath = join(folder, 'bot.sqlite');
  // LOG_LEVEL info: startBotProcess waits for the `ready` line.
  const env = { USER_MESSAGES_PER_MINUTE: '0', LOG_LEVEL: 'info', TOOL_POSTS: 'off' };
  let bot: BotProcess | undefined;
  try {
    seedSchedules(discord, databasePath, round);
    const start = performance.now();
    const loop = await killAtSeededPoints({
      discord,
      model,
      databasePath,
      env,
      schedules: round.schedules,
      kills: round.kills,
      rng: seededRandom(round.seed),
      cycleTimeoutMs: 1_800_000,
      finishTimeoutMs: 1_800_000,
    });
    bot = loop.bot;
    return measure(discord, databasePath, {
      start,
      killedAt: loop.killedAt,
      maxModelInFlight: model.counts().maxInFlight,
    });
  } finally {
    // Measured already: the last process goes as the others did.
    if (bot) await killBotProcess(bot);
    // A process killed mid-request leaves what the fake calls problems (a thread half made): not this bench's question.
    discord.takeProblems();
    await discord.close();
    await model.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

function measure(
  discord: FakeDiscord,
  databasePath: string,
  { start, killedAt, maxModelInFlight }: { start: number; killedAt: string[]; maxModelInFlight: number },
): KillLoopResult {
  const { headers, answered, outcomes } = seenDigests(discord);
  const names = headers.map((message) => /\*\*(.+)\*\*/.exec(message.content)![1]);
  const posts = discord.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/messages'));
  const store = openStore(databasePath, { readOnly: true });
  const perSchedule = store.db
    .prepare('SELECT count(*) FROM schedule_runs GROUP BY schedule_id')
    .pluck()
    .all() as number[];
  store.close();
  return {
    lastAnswerMs: Math.max(...posts.map((request) => request.time)) - start,
    restCalls: discord.requests.length,
    rateLimited: discord.requests.filter((request) => request.status === 429).length,
    maxModelInFlight,
    headers: headers.length,
    headersTwice: names.length - new Set(names).size,
    claims: perSchedule.reduce((sum, count) => sum + count, 0),
    claimedTwice: perSchedule.filter((count) => count > 1).length,
    answered: answered.length,
    outcomesTwice: outcomes.filter((posted) => posted.length > 1).length,
    givenUp: outcomes.filter((posted) => posted.some((text) => text.startsWith('I could not finish answering this')))
      .length,
    killedAt,
  };
}
