import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../db/migrations.ts';
import { openDatabase } from '../../db/open-database.ts';
import type { ScheduleRow } from '../../db/schedules.ts';
import { openStore, type Store } from '../../db/store.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import { remindMe } from '../../tools/remind-me.ts';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../support/fake-model.ts';
import { tempStore } from '../support/temp-store.ts';

describe('remind_me', () => {
  let store: Store;
  beforeEach(() => {
    ({ store } = tempStore());
  });
  afterEach(() => store.close());

  const now = Date.parse('2026-11-22T12:00:00Z');
  const context = {
    conversationId: 'discord:t',
    guildId: 'g',
    channelId: 't',
    requester: { id: 'u1', displayName: 'Ada', isModerator: false },
    logger: silentLogger,
    signal: new AbortController().signal,
  };

  it('stores a reminder for the person who asked, in this channel, and refuses what cannot be', async () => {
    const tool = fromZodTool(remindMe(store.schedules, () => now));
    await expect(tool.execute({ text: 'stretch', in_minutes: 30, at: null }, context)).resolves.toBe(
      'Reminder set for 2026-11-22 12:30 UTC.',
    );
    // A one-off schedule of the member's own, due once.
    expect(store.schedules.due(now + 31 * 60_000)).toMatchObject([
      {
        kind: 'reminder',
        created_by_id: 'u1',
        created_by_name: 'Ada',
        guild_id: 'g',
        channel_id: 't',
        prompt: 'stretch',
        cron: null,
        next_run_at: now + 30 * 60_000,
      },
    ]);
    expect(store.schedules.pendingRemindersOf('u1')).toBe(1);
    // It is no moderator's schedule: /schedule list does not show it.
    expect(store.schedules.inGuild('g')).toEqual([]);
    await expect(tool.execute({ text: 'x', in_minutes: 5, at: '2026-11-23T09:00:00+01:00' }, context)).rejects.toThrow(
      'give exactly one of in_minutes or at',
    );
    await expect(tool.execute({ text: 'x', in_minutes: null, at: '2026-11-22T11:00:00Z' }, context)).rejects.toThrow(
      'already passed',
    );
    expect(tool.validate({ text: 'x', in_minutes: null, at: 'tomorrow' }).ok).toBe(false);
  });

  it('is claimed once, and taken by one instance only, even when two saw it due (two connections to one file)', () => {
    const { store: first, path } = tempStore();
    const second = openStore(path);
    try {
      for (const [db, id] of [
        [first, 'a'],
        [second, 'b'],
      ] as const)
        db.instances.register(id, 'bot');
      const id = first.schedules.addReminder(
        { guildId: 'g', channelId: 't', userId: 'u1', userName: 'Ada', text: 'stretch', dueAt: now - 1 },
        now - 10,
      );
      expect(first.schedules.due(Date.now()).map((row) => row.id)).toEqual([id]);
      expect(second.schedules.due(Date.now()).map((row) => row.id)).toEqual([id]);
      const run = first.schedules.claim(id, now - 1, null, 0, now)!;
      expect(second.schedules.claim(id, now - 1, null, 0, now)).toBeUndefined();
      expect(first.schedules.take(run.id, 'a')).toMatchObject({ claimed_by: 'a', attempts: 1 });
      expect(first.schedules.keepText(run.id, 'content a')).toBe('content a');
      expect(second.schedules.take(run.id, 'b')).toBeUndefined();
      // Once `a` is gone, `b` takes it over, and posts what `a` meant to post.
      first.instances.stop('a');
      expect(second.schedules.take(run.id, 'b')).toMatchObject({ claimed_by: 'b', attempts: 2 });
      expect(second.schedules.keepText(run.id, 'content b')).toBe('content a');
      expect(first.schedules.pendingRemindersOf('u1')).toBe(1);
      second.schedules.posted(run.id, 'm1');
      expect(first.schedules.pendingRemindersOf('u1')).toBe(0);
    } finally {
      first.close();
      second.close();
    }
  });
});

describe('reminders of an older database (migration 25)', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');

  it('become one-off schedules, none lost and none twice: waiting ones due, one tried already claimed with its text', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'reminders-')), 'bot.sqlite');
    const old = openDatabase(path, { migrations: migrations.filter((migration) => migration.version < 25) });
    const insert = old.prepare(`
      INSERT INTO reminders (guild_id, channel_id, user_id, text, due_at, created_at, delivered_at, claimed_by, attempts, first_attempt_at, retry_at, content, message_id, given_up_at, last_error)
      VALUES (@guild, 't', @user, @text, @due, 0, @delivered, @claimedBy, @attempts, @first, @retry, @content, @message, @givenUp, @error)`);
    const row = { guild: 'g', user: 'u1', due: now - 60_000, delivered: null, claimedBy: null, attempts: 0 };
    const none = { first: null, retry: null, content: null, message: null, givenUp: null, error: null };
    insert.run({
      ...row,
      ...none,
      text: 'delivered',
      delivered: now - 1,
      attempts: 1,
      first: now - 2,
      message: 'm1',
      content: 'c1',
    });
    insert.run({ ...row, ...none, text: 'waiting', due: now + 60_000, guild: null, user: 'u2' });
    insert.run({
      ...row,
      ...none,
      text: 'tried',
      claimedBy: 'gone',
      attempts: 2,
      first: now - 5,
      retry: now + 1,
      content: 'as first posted',
      error: 'HTTP 500',
    });
    insert.run({
      ...row,
      ...none,
      text: 'given up',
      attempts: 6,
      first: now - 9,
      givenUp: now - 3,
      error: 'Unknown Channel',
    });
    old.close();

    const migrated = openStore(path);
    try {
      const has = migrated.db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'reminders'").pluck().get();
      expect(has).toBe(0);
      const schedules = migrated.db.prepare('SELECT * FROM schedules ORDER BY id').all() as ScheduleRow[];
      expect(schedules).toMatchObject([
        { kind: 'reminder', prompt: 'delivered', guild_id: 'g', created_by_id: 'u1', next_run_at: null },
        { kind: 'reminder', prompt: 'waiting', guild_id: null, created_by_id: 'u2', next_run_at: now + 60_000 },
        { kind: 'reminder', prompt: 'tried', next_run_at: null },
        { kind: 'reminder', prompt: 'given up', next_run_at: null },
      ]);
      const runs = schedules.flatMap((schedule) => migrated.schedules.runsOf(schedule.id));
      expect(runs).toMatchObject([
        { schedule_id: schedules[0]!.id, state: 'posted', header_id: 'm1' },
        {
          schedule_id: schedules[2]!.id,
          state: 'claimed',
          claimed_by: 'gone',
          attempts: 2,
          retry_at: now + 1,
          posted_text: 'as first posted',
          claimed_at: now - 5,
        },
        { schedule_id: schedules[3]!.id, state: 'failed', error: 'Unknown Channel' },
      ]);
      // Due: the one never tried; open (to be taken once its wait is over): the one tried.
      expect(migrated.schedules.due(now + 60_000).map((schedule) => schedule.prompt)).toEqual(['waiting']);
      expect(migrated.schedules.open(now + 1).map((run) => run.schedule_id)).toEqual([schedules[2]!.id]);
      expect(migrated.schedules.pendingRemindersOf('u1')).toBe(1);
      expect(migrated.schedules.pendingRemindersOf('u2')).toBe(1);
    } finally {
      migrated.close();
    }
  });
});

describe('reminders in Discord', () => {
  let world: BotWorld;
  afterEach(async () => {
    await world?.close();
  });

  /** The bot's POST requests to a channel's messages: what it asked Discord to post. */
  const postsTo = (channelId: string) =>
    world.discord.requests
      .filter((request) => request.method === 'POST' && request.path === `/channels/${channelId}/messages`)
      .map((request) => request.body as { content?: string; nonce?: string; enforce_nonce?: boolean });

  it('posts a reminder when due, pinging only the person who asked, once', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, schedulerIntervalMs: 50 });
    const { discord, model } = world;
    model.enqueue(
      toolCalls({
        name: 'remind_me',
        arguments: { text: 'call <@200000000000000002> and @everyone', in_minutes: 0.005, at: null },
      }),
      finalAnswer('I will remind you.', ['remind_me']),
    );
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} remind me`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);

    // Due in 300 ms: on a busy machine it may come before the answer; found by its text, not its place.
    const reminder = await discord.waitFor(
      () => discord.botMessages(thread.id).find((post) => post.content.includes('reminder:')),
      { what: 'the reminder posted' },
    );
    expect(reminder.content).toBe(`<@${discord.users.ada}> reminder: call <@200000000000000002> and @everyone`);
    expect(reminder.mentions.map((user) => user.id)).toEqual([discord.users.ada]);
    expect(reminder.mention_everyone).toBe(false);
    await waitForBotPosts(world, thread.id, 3);

    // A pass after the post does not find it due again: its time was claimed once, and posted.
    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
    const runs = world.store.db.prepare('SELECT state, header_id FROM schedule_runs').all();
    expect(runs).toEqual([{ state: 'posted', header_id: reminder.id }]);
    expect(postsTo(thread.id).filter((body) => body.content?.includes('reminder:'))).toMatchObject([
      { nonce: expect.any(String), enforce_nonce: true },
    ]);
    expect(discord.botMessages(thread.id)).toHaveLength(3);
  });

  it('a reminder set before a restart is posted once after it, by the one scheduler', async () => {
    // The scheduler's timer waits an hour: only its pass at each start runs.
    world = await startBotWorld({}, {}, {}, { databaseTools: true, schedulerIntervalMs: 3_600_000 });
    const { discord, model } = world;
    model.enqueue(
      toolCalls({ name: 'remind_me', arguments: { text: 'stretch', in_minutes: 0.001, at: null } }),
      finalAnswer('I will remind you.', ['remind_me']),
    );
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} remind me`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await waitForBotPosts(world, thread.id, 2); // The tool post and the answer.
    const isReminder = (post: { content: string }) => post.content.startsWith(`<@${discord.users.ada}> reminder:`);
    expect(discord.botMessages(thread.id).filter(isReminder)).toEqual([]);
    const dueAt = world.store.schedules.due(Date.now() + 60_000)[0]!.next_run_at!;
    await discord.waitFor(() => Date.now() > dueAt, { what: 'its time to come' });

    await world.restart();
    await discord.waitFor(() => discord.botMessages(thread.id).find(isReminder), { what: 'the reminder posted' });
    await world.restart();
    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
    expect(discord.botMessages(thread.id).filter(isReminder)).toHaveLength(1);
    expect(postsTo(thread.id).filter((body) => body.content?.includes('reminder:'))).toHaveLength(1);
  });

  it('posts one that fell due while the bot was down, late and saying so, and never twice', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, schedulerIntervalMs: 50 });
    const { discord } = world;
    const channelId = discord.channels.general;
    await world.restart({
      whileDown: async () => {
        const offline = openStore(world.databasePath);
        offline.schedules.addReminder({
          guildId: discord.guildId,
          channelId,
          userId: discord.users.bob,
          userName: 'Bob',
          text: 'water the plants',
          dueAt: Date.now() - 60_000,
        });
        offline.close();
      },
    });
    const [posted] = await waitForBotPosts(world, channelId, 1);
    expect(posted!.content).toMatch(
      new RegExp(
        `^<@${discord.users.bob}> reminder: water the plants \\(late: it was due <t:\\d+:f>, while I was offline\\)$`,
      ),
    );

    await world.restart();
    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
    expect(postsTo(channelId)).toHaveLength(1);
    expect(discord.botMessages(channelId)).toHaveLength(1);
  });

  it('posts, once, a reminder claimed by an instance that died before posting it', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, schedulerIntervalMs: 3_600_000 });
    const { discord } = world;
    const channelId = discord.channels.general;
    let id = 0;
    await world.restart({
      // As a process killed between the claim and the post leaves it: its instance not marked
      // stopped, the reminder claimed by it, nothing in the channel.
      whileDown: async () => {
        const offline = openStore(world.databasePath);
        offline.instances.register('killed-instance', 'bot');
        const dueAt = Date.now() - 1_000;
        const schedule = offline.schedules.addReminder({
          guildId: discord.guildId,
          channelId,
          userId: discord.users.bob,
          userName: 'Bob',
          text: 'water the plants',
          dueAt,
        });
        id = offline.schedules.claim(schedule, dueAt, null, 0, Date.now())!.id;
        expect(offline.schedules.take(id, 'killed-instance')).toBeDefined();
        offline.close();
      },
    });
    const [posted] = await waitForBotPosts(world, channelId, 1);
    expect(posted!.content).toBe(`<@${discord.users.bob}> reminder: water the plants`);
    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
    expect(world.store.schedules.runById(id)).toMatchObject({
      attempts: 2,
      claimed_by: null,
      state: 'posted',
      header_id: posted!.id,
    });
    expect(discord.botMessages(channelId)).toHaveLength(1);
  });

  it('leaves alone a reminder that a live instance is posting', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, schedulerIntervalMs: 3_600_000 });
    const { discord, store } = world;
    store.instances.register('other-live-instance', 'bot');
    const dueAt = Date.now() - 1;
    const schedule = store.schedules.addReminder({
      guildId: discord.guildId,
      channelId: discord.channels.general,
      userId: discord.users.bob,
      userName: 'Bob',
      text: 'mine',
      dueAt,
    });
    const { id } = store.schedules.claim(schedule, dueAt, null, 0, Date.now())!;
    store.schedules.take(id, 'other-live-instance');

    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
    expect(store.schedules.runById(id)).toMatchObject({ claimed_by: 'other-live-instance', attempts: 1 });
    expect(postsTo(discord.channels.general)).toHaveLength(0);
  });
});
