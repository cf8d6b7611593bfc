import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../db/migrations.ts';
import { openDatabase } from '../../db/open-database.ts';
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
    const tool = fromZodTool(remindMe(store.reminders, () => now));
    await expect(tool.execute({ text: 'stretch', in_minutes: 30, at: null }, context)).resolves.toBe(
      'Reminder set for 2026-11-22 12:30 UTC.',
    );
    expect(store.reminders.due(now + 31 * 60_000)).toMatchObject([
      { user_id: 'u1', channel_id: 't', text: 'stretch', due_at: now + 30 * 60_000 },
    ]);
    expect(store.reminders.pendingFor('u1')).toBe(1);
    await expect(tool.execute({ text: 'x', in_minutes: 5, at: '2026-11-23T09:00:00+01:00' }, context)).rejects.toThrow(
      'give exactly one of in_minutes or at',
    );
    await expect(tool.execute({ text: 'x', in_minutes: null, at: '2026-11-22T11:00:00Z' }, context)).rejects.toThrow(
      'already passed',
    );
    expect(tool.validate({ text: 'x', in_minutes: null, at: 'tomorrow' }).ok).toBe(false);
  });

  it('keeps the reminders of an older database: those marked sent count as delivered, waiting ones stay due', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'reminders-')), 'bot.sqlite');
    const old = openDatabase(path, { migrations: migrations.filter((migration) => migration.version <= 4) });
    const insert = old.prepare(
      "INSERT INTO reminders (guild_id, channel_id, user_id, text, due_at, created_at, sent_at) VALUES ('g', 't', 'u1', ?, ?, 0, ?)",
    );
    insert.run('sent', now - 2, now - 1);
    insert.run('waiting', now + 60_000, null);
    old.close();

    const migrated = openStore(path);
    try {
      expect(migrated.reminders.due(now + 60_000).map((row) => row.text)).toEqual(['waiting']);
      expect(migrated.reminders.byId(1)).toMatchObject({
        text: 'sent',
        delivered_at: now - 1,
        attempts: 0,
        claimed_by: null,
      });
      expect(migrated.reminders.pendingFor('u1')).toBe(1);
    } finally {
      migrated.close();
    }
  });

  it('is claimed by one instance only, even when two saw it due (two connections to one file)', () => {
    const { store: first, path } = tempStore();
    const second = openStore(path);
    try {
      for (const [db, id] of [
        [first, 'a'],
        [second, 'b'],
      ] as const)
        db.instances.register(id, 'bot');
      const id = first.reminders.add(
        { guildId: 'g', channelId: 't', userId: 'u1', text: 'stretch', dueAt: now - 1 },
        now - 10,
      );
      expect(first.reminders.due(Date.now()).map((row) => row.id)).toEqual([id]);
      expect(second.reminders.due(Date.now()).map((row) => row.id)).toEqual([id]);
      expect(first.reminders.claim(id, 'a', 'content a')).toMatchObject({
        claimed_by: 'a',
        attempts: 1,
        content: 'content a',
      });
      expect(second.reminders.claim(id, 'b', 'content b')).toBeUndefined();
      // Once `a` is gone, `b` takes it over, and posts what `a` meant to post.
      first.instances.stop('a');
      expect(second.reminders.claim(id, 'b', 'content b')).toMatchObject({
        claimed_by: 'b',
        attempts: 2,
        content: 'content a',
      });
    } finally {
      first.close();
      second.close();
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
    world = await startBotWorld({}, {}, {}, { databaseTools: true, reminderIntervalMs: 50 });
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

    // A pass after the post does not find it due again: it was marked delivered, with its message.
    expect((await world.bot.reminders.tick()).outcomes).toEqual([]);
    const [row] = world.store.db.prepare('SELECT delivered_at, message_id FROM reminders').all() as {
      delivered_at: number | null;
      message_id: string;
    }[];
    expect(row).toEqual({ delivered_at: expect.any(Number), message_id: reminder.id });
    expect(postsTo(thread.id).filter((body) => body.content?.includes('reminder:'))).toMatchObject([
      { nonce: expect.any(String), enforce_nonce: true },
    ]);
    expect(discord.botMessages(thread.id)).toHaveLength(3);
  });

  it('posts one that fell due while the bot was down, late and saying so, and never twice', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, reminderIntervalMs: 50 });
    const { discord } = world;
    const channelId = discord.channels.general;
    await world.restart({
      whileDown: async () => {
        const offline = openStore(world.databasePath);
        offline.reminders.add({
          guildId: discord.guildId,
          channelId,
          userId: discord.users.bob,
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
    expect((await world.bot.reminders.tick()).outcomes).toEqual([]);
    expect(postsTo(channelId)).toHaveLength(1);
    expect(discord.botMessages(channelId)).toHaveLength(1);
  });

  it('posts, once, a reminder claimed by an instance that died before posting it', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, reminderIntervalMs: 3_600_000 });
    const { discord } = world;
    const channelId = discord.channels.general;
    let id = 0;
    await world.restart({
      // As a process killed between the claim and the post leaves it: its instance not marked
      // stopped, the reminder claimed by it, nothing in the channel.
      whileDown: async () => {
        const offline = openStore(world.databasePath);
        offline.instances.register('killed-instance', 'bot');
        id = offline.reminders.add({
          guildId: discord.guildId,
          channelId,
          userId: discord.users.bob,
          text: 'water the plants',
          dueAt: Date.now() - 60_000,
        });
        expect(
          offline.reminders.claim(id, 'killed-instance', `<@${discord.users.bob}> reminder: water the plants`),
        ).toBeDefined();
        offline.close();
      },
    });
    const [posted] = await waitForBotPosts(world, channelId, 1);
    expect(posted!.content).toBe(`<@${discord.users.bob}> reminder: water the plants`);
    expect((await world.bot.reminders.tick()).outcomes).toEqual([]);
    expect(world.store.reminders.byId(id)).toMatchObject({
      attempts: 2,
      claimed_by: null,
      delivered_at: expect.any(Number),
      message_id: posted!.id,
    });
    expect(discord.botMessages(channelId)).toHaveLength(1);
  });

  it('leaves alone a reminder that a live instance is posting', async () => {
    world = await startBotWorld({}, {}, {}, { databaseTools: true, reminderIntervalMs: 3_600_000 });
    const { discord, store } = world;
    store.instances.register('other-live-instance', 'bot');
    const id = store.reminders.add({
      guildId: discord.guildId,
      channelId: discord.channels.general,
      userId: discord.users.bob,
      text: 'mine',
      dueAt: Date.now() - 1,
    });
    store.reminders.claim(id, 'other-live-instance', 'content');

    expect((await world.bot.reminders.tick()).outcomes).toEqual([]);
    expect(store.reminders.byId(id)).toMatchObject({ claimed_by: 'other-live-instance', attempts: 1 });
    expect(postsTo(discord.channels.general)).toHaveLength(0);
  });
});
