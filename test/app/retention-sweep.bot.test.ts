/**
 * Retention in `npm start` (src/app/retention-sweeper.ts): the bot, as a real process against the
 * fakes, sweeps at start what is past the operator's limits, says so in its log, and answers.
 */
import { expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { useBotProcessWorld } from '../support/bot-process-world.ts';
import { finalAnswer } from '../support/fake-model.ts';

const world = useBotProcessWorld('retention-');

it(
  'sweeps messages past MESSAGE_RETENTION_DAYS at start, says so in its log, and answers on',
  { timeout: 60_000 },
  async () => {
    const store = openStore(world.databasePath);
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

    const bot = await world.start({ MESSAGE_RETENTION_DAYS: '30' });
    const swept = await bot.waitForLog('retention sweep');
    expect(swept).toMatchObject({ messages: 1000, runs: 0, images: 0 });
    expect(swept.longestLockMs).toEqual(expect.any(Number));

    world.model.enqueue(finalAnswer('Still answering.'));
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'ada',
      content: `<@${world.discord.botUser.id}> hello`,
      mentions: [world.discord.botUser.id],
    });
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.discord.botMessages(thread.id).length === 1, { what: 'the answer' });
    const after = openStore(world.databasePath, { readOnly: true });
    expect(after.db.prepare("SELECT count(*) FROM messages WHERE content LIKE 'long ago%'").pluck().get()).toBe(0);
    after.close();
  },
);
