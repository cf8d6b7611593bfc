/**
 * /forget-me (commands/forget-me.ts, db/forget-member.ts) through the bot and the fake Discord: it
 * first only says what it would delete; confirmed, the member's words and the answers to them are
 * gone from later model requests and from the database file's bytes and its WAL, while the other
 * member's messages stay.
 */
import { existsSync, readFileSync } from 'node:fs';
import { forgottenTitle } from '../../db/forget-member.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { answeredConversation } from '../support/command-world.ts';
import { finalAnswer } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

const adaSaid = 'ZEBRAQUARTZ';
const answerToAda = 'PLUMWHISTLE';

/** The database as it is on disk, the file and its WAL, in lower case (as the search index keeps words). */
function bytesOnDisk(path: string): string {
  const wal = `${path}-wal`;
  return Buffer.concat([readFileSync(path), existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0)])
    .toString('latin1')
    .toLowerCase();
}

describe('/forget-me', () => {
  it("shows what it would delete, then deletes the member's words and the answers to them, and keeps the others'", async () => {
    world = await startBotWorld();
    const { discord, model, store, databasePath } = world;
    const thread = await answeredConversation(world, `my code word is ${adaSaid}`, `Noted: ${answerToAda}.`);
    model.enqueue(finalAnswer('Hello bob, KEEPANSWER.'));
    await discord.userSays({ channelId: thread.id, author: 'bob', content: 'bob here, KEEPMEBOB' });
    await waitForBotPosts(world, thread.id, 2);
    // An image stored with her message (as the router stores one posted with it).
    const adaMessage = store.db.prepare("SELECT id FROM messages WHERE role = 'user' AND author_id = ?").pluck();
    store.images.add(adaMessage.get(discord.users.ada) as number, [
      { name: 'a.png', mediaType: 'image/png', width: 1, height: 1, bytes: Buffer.from('IMAGEOFADA'.repeat(50)) },
    ]);
    const rows = () => store.db.prepare('SELECT count(*) FROM messages').pluck().get();
    const before = rows();
    expect(bytesOnDisk(databasePath)).toContain(adaSaid.toLowerCase());

    const asked = await discord.userRunsCommand({ name: 'forget-me', author: 'ada', channelId: thread.id });
    const shown = await asked.waitForReply();
    expect(shown.ephemeral).toBe(true);
    expect(shown.content).toMatch(
      /^In this server, \/forget-me confirm: True would delete:\n- 1 message you wrote, with 1 image\n- 1 answer I gave them \(1 message in my memory, 2 steps in the step log\)\n- 0 reminders\n- 0 reports you made of my answers\nOthers' messages in the same threads stay\. Nothing was deleted\.$/,
    );
    expect(rows()).toBe(before);

    const confirmed = await discord.userRunsCommand({
      name: 'forget-me',
      author: 'ada',
      channelId: thread.id,
      options: { confirm: true },
    });
    const done = await confirmed.waitForReply();
    expect(done.ephemeral).toBe(true);
    expect(done.content).toContain('Deleted for good, in this server:\n- 1 message you wrote');
    // The record says who and how many, never what.
    const records = store.db.prepare('SELECT guild_id, user_id, counts FROM forgets').all();
    expect(records).toEqual([
      {
        guild_id: discord.guildId,
        user_id: discord.users.ada,
        counts: JSON.stringify({
          messages: 1,
          images: 1,
          runs: 1,
          toolCalls: 0,
          answers: 1,
          steps: 2,
          reminders: 0,
          reports: 0,
          facts: 0,
          schedules: 0,
          knowledgeDocuments: 0,
        }),
      },
    ]);

    // The thread the bot opened was named after her first words.
    expect(discord.threads()[0]?.name).toBe(forgottenTitle);

    let request = '';
    model.enqueue((body) => {
      request = JSON.stringify(body.messages);
      return finalAnswer('Still here.');
    });
    await discord.userSays({ channelId: thread.id, author: 'bob', content: 'what do you remember?' });
    await waitForBotPosts(world, thread.id, 3);
    expect(request).toContain('KEEPMEBOB');
    expect(request).toContain('KEEPANSWER');
    expect(request).not.toContain(adaSaid);
    expect(request).not.toContain(answerToAda);
    const disk = bytesOnDisk(databasePath);
    expect(disk).not.toContain(adaSaid.toLowerCase());
    expect(disk).not.toContain(answerToAda.toLowerCase());
    expect(disk).not.toContain('imageofada');
    expect(disk).toContain('keepmebob');

    const again = await discord.userRunsCommand({ name: 'forget-me', author: 'ada', channelId: thread.id });
    expect((await again.waitForReply()).content).toBe('I keep nothing of yours in this server.');
  });
  it("deletes the schedules the member set in the server (their prompt and name are their words), not others'", async () => {
    world = await startBotWorld();
    const { discord, store } = world;
    const schedule = (by: string, name: string) =>
      store.schedules.add({
        guild_id: discord.guildId,
        channel_id: discord.channels.general,
        name,
        prompt: `${name} SCHEDULEWORDS`,
        when_text: 'daily 09:00',
        cron: '0 9 * * *',
        time_zone: 'UTC',
        post_as: 'thread',
        model: null,
        persona: null,
        created_by_id: by,
        created_by_name: by === discord.users.ada ? 'Ada' : 'Bob',
        next_run_at: Date.now() + 3_600_000,
      });
    schedule(discord.users.ada, 'standup');
    schedule(discord.users.bob, 'digest');
    const asked = await discord.userRunsCommand({
      name: 'forget-me',
      author: 'ada',
      channelId: discord.channels.general,
      options: { confirm: true },
    });
    expect((await asked.waitForReply()).content).toContain('- 1 schedule you set (/schedule)');
    expect(store.schedules.inGuild(discord.guildId).map((row) => row.name)).toEqual(['digest']);
  });

  it("deletes the member's reminders (their own one-off schedules) in the server, pending or posted, not others'", async () => {
    world = await startBotWorld();
    const { discord, store } = world;
    // One due time: a claim names the time it claims, to the millisecond.
    const dueAt = Date.now() + 3_600_000;
    const remind = (userId: string, text: string, guildId: string | null = discord.guildId) =>
      store.schedules.addReminder({
        guildId,
        channelId: discord.channels.general,
        userId,
        userName: 'someone',
        text,
        dueAt,
      });
    remind(discord.users.ada, 'REMINDERWORDS one');
    const posted = remind(discord.users.ada, 'REMINDERWORDS two');
    store.schedules.posted(store.schedules.claim(posted, dueAt, null, 0, Date.now())!.id, 'm');
    remind(discord.users.ada, 'in a DM, kept here', null);
    remind(discord.users.bob, 'bob keeps his');
    const asked = await discord.userRunsCommand({
      name: 'forget-me',
      author: 'ada',
      channelId: discord.channels.general,
      options: { confirm: true },
    });
    expect((await asked.waitForReply()).content).toContain('- 2 reminders');
    const left = store.db.prepare("SELECT prompt FROM schedules WHERE kind = 'reminder' ORDER BY id").pluck().all();
    expect(left).toEqual(['in a DM, kept here', 'bob keeps his']);
    expect(store.db.prepare('SELECT count(*) FROM schedule_runs').pluck().get()).toBe(0);
    expect(bytesOnDisk(world.databasePath)).not.toContain('reminderwords');
  });
});
