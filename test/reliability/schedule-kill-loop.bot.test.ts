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

const cycles = Number(process.env.KILL_CYCLES ?? 3);
const seed = Number(process.env.KILL_SEED ?? 1);
const schedules = 12;

/** mulberry32, as in kill-loop.test.ts: a failing KILL_SEED can be run again. */
function random(seedValue: number): () => number {
  let state = seedValue >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const askedIn = (request: ChatRequest) =>
  request.messages.findLast((message) => message.role === 'user')?.content ?? '';

it(
  `${schedules} scheduled runs due at once survive ${cycles} SIGKILLs (seed ${seed}): each runs exactly once`,
  { timeout: 60_000 + cycles * 30_000 },
  async () => {
    const rng = random(seed);
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
      for (let index = 0; index < schedules; index++)
        writer.schedules.add({
          guild_id: discord.guildId,
          channel_id: general,
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
          next_run_at: Date.now() - 1000,
        });
      writer.close();

      // Progress: headers posted and threads answered, 2 per schedule. Each cycle kills at a seeded
      // point of its share of it, so that the kills fall all along the work: claims and headers, runs, answers.
      const headerCount = () =>
        discord.botMessages(general).filter((message) => message.content.startsWith('⏰')).length;
      const answeredCount = () =>
        discord.threads().filter((thread) => discord.botMessages(thread.id).length > 0).length;
      const killedAt: string[] = [];
      discord.latencyMs = 15;
      for (let cycle = 0; cycle < cycles; cycle++) {
        const target = Math.min(2 * schedules - 1, Math.floor((2 * schedules * (cycle + rng())) / (cycles + 1)) + 1);
        bot = await startBotProcess(discord, model, databasePath, env);
        await discord.waitFor(() => headerCount() + answeredCount() >= target, {
          what: `progress ${target}`,
          timeoutMs: 30_000,
        });
        bot.child.kill('SIGKILL');
        await bot.exited;
        killedAt.push(`${headerCount()} headers, ${answeredCount()} answered`);
      }
      bot = await startBotProcess(discord, model, databasePath, env);
      const answered = () =>
        discord
          .threads()
          .filter((thread) => thread.name.startsWith('digest '))
          .filter((thread) => discord.botMessages(thread.id).length > 0);
      await discord.waitFor(() => answered().length >= schedules, {
        what: `every schedule answered (killed at: ${killedAt.join('; ')})`,
        timeoutMs: 60_000,
      });

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
      if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill('SIGKILL');
      await bot.exited;
      await discord.close();
      model.drain();
      await model.close();
    }
  },
);
