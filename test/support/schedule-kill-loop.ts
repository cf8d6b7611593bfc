/**
 * What the runs of many schedules due at once share (test/reliability/schedule-kill-loop.bot.test.ts,
 * bench/schedule-kill-loop.ts, bench/schedules.ts): the schedules, what the fake Discord shows of
 * them, and the loop that SIGKILLs `npm start`'s bot at seeded points of that work and starts it
 * again on the same database.
 */
import type { Store } from '../../db/store.ts';
import { type BotProcess, startBotProcess } from './bot-process.ts';
import type { FakeDiscord } from './fake-discord.ts';
import type { ScriptedModel } from './fake-model.ts';

/** A server and the channel its schedules post in. */
export interface SchedulePlace {
  guildId: string;
  generalId: string;
}

/** The fake's own server, then new ones (`fake.addGuild`), `servers` in all. */
export function digestPlaces(discord: FakeDiscord, servers: number): SchedulePlace[] {
  const places = [{ guildId: discord.guildId, generalId: discord.channels.general }];
  for (let index = 1; index < servers; index++) places.push(discord.addGuild(`server ${index}`));
  return places;
}

/**
 * `count` daily schedules `digest N` (prompt `sum up [sN]`, set by Ada, answered in a thread),
 * spread over `places` in turn, all due at `dueAt`.
 */
export function addDueDigests(
  store: Store,
  discord: FakeDiscord,
  places: readonly SchedulePlace[],
  count: number,
  dueAt: number,
): void {
  store.db.transaction(() => {
    for (let index = 0; index < count; index++) {
      const place = places[index % places.length]!;
      store.schedules.add({
        guild_id: place.guildId,
        channel_id: place.generalId,
        name: `digest ${index}`,
        prompt: `sum up [s${index}]`,
        when_text: 'daily 09:00',
        cron: '0 9 * * *',
        time_zone: 'UTC',
        post_as: 'thread',
        model: null,
        persona: null,
        created_by_id: discord.users.ada,
        created_by_name: 'Ada',
        next_run_at: dueAt,
      });
    }
  })();
}

/** What the fake Discord shows: the headers posted, and the digests' threads with what was posted in each. */
export function seenDigests(discord: FakeDiscord) {
  const headers = discord.botMessages().filter((message) => message.content.startsWith('⏰ Scheduled'));
  const threads = discord.threads().filter((thread) => thread.name.startsWith('digest '));
  const outcomes = threads.map((thread) => discord.botMessages(thread.id).map((message) => message.content));
  return { headers, answered: outcomes.filter((posted) => posted.length > 0), outcomes };
}

export interface ScheduleKillLoop {
  discord: FakeDiscord;
  model: Pick<ScriptedModel, 'baseURL'>;
  databasePath: string;
  env: Record<string, string>;
  /** The digests due (addDueDigests). */
  schedules: number;
  kills: number;
  /** Where the kill points come from (seededRandom). */
  rng: () => number;
  /** How long a cycle may take to reach its kill point. */
  cycleTimeoutMs: number;
  /** How long the last start may take to answer every digest. */
  finishTimeoutMs: number;
}

/**
 * `kills` times: the bot started, and SIGKILLed once the progress (headers posted and digests
 * answered, 2 steps a schedule) reaches a seeded point of the cycle's share of it, so that the kills
 * fall all along the work (claims and headers, runs, answers); then started once more and waited
 * for until every digest is answered. Resolves with that bot, still running, and where each kill
 * fell; a bot left running by a failure is killed first.
 */
export async function killAtSeededPoints(loop: ScheduleKillLoop): Promise<{ bot: BotProcess; killedAt: string[] }> {
  const { discord, schedules, kills } = loop;
  const start = () => startBotProcess(discord, loop.model, loop.databasePath, loop.env);
  const killedAt: string[] = [];
  const total = 2 * schedules;
  for (let cycle = 0; cycle < kills; cycle++) {
    const target = Math.min(total - 1, Math.floor((total * (cycle + loop.rng())) / (kills + 1)) + 1);
    const bot = await start();
    try {
      await discord.waitFor(
        () => {
          const { headers, answered } = seenDigests(discord);
          return headers.length + answered.length >= target;
        },
        { what: `progress ${target}`, timeoutMs: loop.cycleTimeoutMs },
      );
    } finally {
      await killBotProcess(bot);
    }
    const { headers, answered } = seenDigests(discord);
    killedAt.push(`${headers.length} headers, ${answered.length} answered`);
  }
  const bot = await start();
  try {
    await discord.waitFor(() => seenDigests(discord).answered.length >= schedules, {
      what: `every schedule answered (killed at: ${killedAt.join('; ')})`,
      timeoutMs: loop.finishTimeoutMs,
    });
  } catch (error) {
    await killBotProcess(bot);
    throw error;
  }
  return { bot, killedAt };
}

/** SIGKILLs the bot unless it is gone already, and waits for its exit. */
export async function killBotProcess(bot: BotProcess): Promise<void> {
  if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill('SIGKILL');
  await bot.exited;
}
