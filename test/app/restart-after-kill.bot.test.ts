/**
 * One bot per database, with `npm start` as real processes against the fakes: a live bot refuses a
 * second one, and a bot whose whole process group was SIGKILLed does not (its lock went with it,
 * even while it waits, a zombie, for PID 1 to reap it).
 */
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import type { BotProcess } from '../support/bot-process.ts';
import { useBotProcessWorld } from '../support/bot-process-world.ts';
import { runScript } from '../support/run-process.ts';
import { finalAnswer } from '../support/fake-model.ts';

// Its teardown kills the whole group: npm and the bot under it.
const world = useBotProcessWorld('restart-');

async function npmStart(): Promise<BotProcess> {
  return world.start({}, { npmStart: true });
}

// Each test starts two cold processes (npm, node, tsx): more than the default timeout on a busy machine.
it('a live bot refuses a second one on the same database, with one clear message', { timeout: 60_000 }, async () => {
  const bot = await npmStart();
  const pid = Number((await bot.waitForLog('ready')).pid);

  const second = await runScript('src/main.ts', {
    cwd: mkdtempSync(join(tmpdir(), 'second-')),
    env: {
      OPENAI_BASE_URL: world.model.baseURL,
      DISCORD_API_URL: world.discord.apiUrl,
      DISCORD_TOKEN: world.discord.token,
      DATABASE_PATH: world.databasePath,
    },
  });

  expect(second.code).toBe(1);
  expect(second.stderr.trim()).toBe(
    `Another bot (process ${pid} on ${hostname()}) is already using this database. Stop it first, or point DATABASE_PATH at another file.`,
  );
});

it(
  "starts again at once after npm start's process group is SIGKILLed, and answers the run the kill cut short, once",
  { timeout: 60_000 },
  async () => {
    world.model.enqueue({ hang: true });
    const killed = await npmStart();
    const mention = `<@${world.discord.botUser.id}> hello?`;
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'ada',
      content: mention,
      mentions: [world.discord.botUser.id],
    });
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.model.requests.length === 1, { what: 'the model asked' });

    process.kill(-killed.child.pid!, 'SIGKILL');
    world.model.enqueue(finalAnswer('Hello, once.'));
    // At once: no wait for the killed bot to be reaped. `startBotProcess` resolves at the new bot's
    // `ready` line; a refused start would exit with the message instead.
    await npmStart();

    await world.discord.waitFor(() => world.discord.botMessages(thread.id).length === 1, { what: 'the answer' });
    expect(world.discord.botMessages(thread.id).map((message) => message.content)).toEqual(['Hello, once.']);
    const store = openStore(world.databasePath);
    expect(store.db.prepare('SELECT status FROM runs ORDER BY started_at, rowid').pluck().all()).toEqual([
      'interrupted',
      'answered',
    ]);
    store.close();
  },
);
