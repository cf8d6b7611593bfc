/**
 * Retention in `npm start` (src/app/retention-sweeper.ts): the bot, as a real process against the
 * fakes, sweeps at start what is past the operator's limits, says so in its log, and answers.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { finalAnswer, type ScriptedModel, startScriptedModel } from '../support/fake-model.ts';

let discord: FakeDiscord;
let model: ScriptedModel;
let bot: BotProcess | undefined;
afterEach(async () => {
  if (bot && bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill('SIGKILL');
  await bot?.exited;
  await discord?.close();
  await model?.close();
});

it(
  'sweeps messages past MESSAGE_RETENTION_DAYS at start, says so in its log, and answers on',
  { timeout: 60_000 },
  async () => {
    discord = await startFakeDiscord();
    model = await startScriptedModel();
    const databasePath = join(mkdtempSync(join(tmpdir(), 'retention-')), 'bot.sqlite');
    const store = openStore(databasePath);
    const old = Date.now() - 100 * 24 * 60 * 60 * 1000;
    store.db
      .prepare("INSERT INTO conversations (key, title, guild_id, created_at) VALUES ('terminal:old', 'old', NULL, ?)")
      .run(old);
    const insert = store.db.prepare(
      "INSERT INTO messages (conversation_id, role, author_id, content, created_at, token_count) VALUES (1, 'user', 'u', ?, ?, 1)",
    );
    store.db.transaction(() => {
      for (let index = 0; index < 1000; index++) insert.run(`long ago ${index}`, old);
    })();
    store.close();

    bot = await startBotProcess(discord, model, databasePath, { MESSAGE_RETENTION_DAYS: '30' });
    const swept = await bot.waitForLog('retention sweep');
    expect(swept).toMatchObject({ messages: 1000, runs: 0, images: 0 });
    expect(swept.longestLockMs).toEqual(expect.any(Number));

    model.enqueue(finalAnswer('Still answering.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `<@${discord.botUser.id}> hello`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await discord.waitFor(() => discord.botMessages(thread.id).length === 1, { what: 'the answer' });
    const after = openStore(databasePath, { readOnly: true });
    expect(after.db.prepare("SELECT count(*) FROM messages WHERE content LIKE 'long ago%'").pluck().get()).toBe(0);
    after.close();
  },
);
