/**
 * Scheduled runs under SIGKILL: `npm start`'s bot as a child process, with SCHEDULES due at once, is
 * killed at seeded random moments of their start (claims, headers, threads, runs) and started again
 * on the same database, KILL_CYCLES times; then left to finish. Each schedule's due time must have
 * run exactly once: one claim, one header, one thread, one outcome in it (its answer, or the notice
 * of a run the lifecycle gave up after being cut off several times in a row, as for any message); none lost.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { startFakeDiscord } from '../support/fake-discord.ts';
import { type ChatRequest, finalAnswer, startScriptedModel } from '../support/fake-model.ts';
import { addDueDigests, killAtSeededPoints, killBotProcess } from '../support/schedule-kill-loop.ts';
import { seededRandom } from '../support/seeded-random.ts';

const cycles = Number(process.env.KILL_CYCLES ?? 3);
const seed = Number(process.env.KILL_SEED ?? 1);
const schedules = 12;

const askedIn = (request: ChatRequest) =>
  request.messages.findLast((message) => message.role === 'user')?.content ?? '';

it(
  `${schedules} scheduled runs due at once survive ${cycles} SIGKILLs (seed ${seed}): each runs exactly once`,
  { timeout: 60_000 + cycles * 30_000 },
  async () => {
    const rng = seededRandom(seed);
    const discord = await startFakeDiscord();
    const model = await startScriptedModel();
    model.otherwise((request) => ({
      ...finalAnswer(`Answer to «${askedIn(request)}».`),
      delayMs: Math.floor(rng() * 300),
    }));
    const databasePath = join(mkdtempSync(join(tmpdir(), 'schedule-kill-')), 'bot.sqlite');
    const env = { USER_MESSAGES_PER_MINUTE: '0', LOG_LEVEL: 'info' };
    const general = discord.channels.general;
    let bot: BotProcess = await startBotProcess(discord, model, databasePath, env);
    try {
      await bot.waitForLog('connected to Discord');
      bot.child.kill('SIGKILL');
      await bot.exited;
      // While it is down, the schedules come due.
      const writer = openStore(databasePath);
      addDueDigests(writer, discord, [{ guildId: discord.guildId, generalId: general }], schedules, Date.now() - 1000);
      writer.close();

      discord.latencyMs = 15;
      ({ bot } = await killAtSeededPoints({
        discord,
        model,
        databasePath,
        env,
        schedules,
        kills: cycles,
        rng,
        cycleTimeoutMs: 30_000,
        finishTimeoutMs: 60_000,
      }));

      const headers = discord.botMessages(general).filter((message) => message.content.startsWith('⏰ Scheduled'));
      expect(headers).toHaveLength(schedules);
      const threads = discord.threads().filter((thread) => thread.name.startsWith('digest '));
      expect(threads.map((thread) => thread.name).sort()).toEqual(
        Array.from({ length: schedules }, (_, index) => `digest ${index}`).sort(),
      );
      // One outcome each: its answer, or (a run cut off by several kills in a row) the notice that it was given up.
      for (const thread of threads) {
        const outcomes = discord.botMessages(thread.id).map((message) => message.content);
        expect(outcomes, thread.name).toEqual([
          expect.stringMatching(/^(Answer to «Ada: sum up \[s\d+\]»\.|I could not finish answering this: )/),
        ]);
      }
      const reader = openStore(databasePath, { readOnly: true });
      const claims = reader.db
        .prepare('SELECT schedule_id, count(*) AS n FROM schedule_runs GROUP BY schedule_id')
        .all();
      reader.close();
      expect(claims).toHaveLength(schedules);
      expect(claims.every((row) => (row as { n: number }).n === 1)).toBe(true);
    } finally {
      await killBotProcess(bot);
      await discord.close();
      model.drain();
      await model.close();
    }
  },
);
