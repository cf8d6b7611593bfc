/**
 * `npm run forget` (src/forget.ts) as the operator runs it: the compiled script on a real database
 * holding a user's data in two servers and in their DMs with the bot, beside another user's.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from '../db/store.ts';
import { runScript } from './support/run-process.ts';

const leaver = '111111111111111111';
const stayer = '222222222222222222';

it("says what it would delete of a user in every server and in DMs, deletes it with --confirm, and keeps the others'", async () => {
  const folder = mkdtempSync(join(tmpdir(), 'forget-'));
  const databasePath = join(folder, 'bot.sqlite');
  const store = openStore(databasePath);
  const insert = store.db.prepare(
    "INSERT INTO messages (conversation_id, role, author_id, content, created_at, token_count) VALUES (?, 'user', ?, ?, 0, 1)",
  );
  for (const [index, server] of ['900000000000000001', '900000000000000002'].entries()) {
    store.db
      .prepare('INSERT INTO conversations (key, title, guild_id, started_by_id, created_at) VALUES (?, ?, ?, ?, 0)')
      .run(`discord:${index}`, 'a thread', server, stayer);
    insert.run(index + 1, leaver, `words of the leaver ${index}`);
    insert.run(index + 1, stayer, `words of the stayer ${index}`);
  }
  // The leaver's DM conversation with the bot (no server; ALLOW_DMS), and a terminal one, which no forget touches.
  const conversation = store.db.prepare(
    'INSERT INTO conversations (key, title, guild_id, started_by_id, created_at) VALUES (?, ?, NULL, ?, 0)',
  );
  conversation.run('discord:900000000000000077', 'Direct messages with Leaver', leaver);
  insert.run(3, leaver, 'words of the leaver in a DM');
  conversation.run('terminal:notes', 'notes', leaver);
  insert.run(4, leaver, 'words at the terminal');
  // Facts they asked the bot to remember (member memory): in the first server and in their DMs; the stayer's stays.
  store.memberFacts.keep('900000000000000001', leaver, 'Call me Leaver', 50);
  store.memberFacts.keep('@me', leaver, 'Uses metric units', 50);
  store.memberFacts.keep('900000000000000001', stayer, 'Call me Stayer', 50);
  store.close();
  const forget = (...args: string[]) =>
    runScript('src/forget.ts', { args, cwd: folder, env: { DATABASE_PATH: databasePath } });

  const dry = await forget('--user', leaver);
  expect(dry).toMatchObject({ code: 0, stderr: '' });
  expect(dry.stdout).toBe(
    [
      `Would delete in server 900000000000000001 (${databasePath}): 1 message, 0 images, 0 runs, 0 tool calls, 0 answers, 0 steps, 0 reminders, 0 reports, 1 fact, 0 schedules, 0 knowledge documents.`,
      `Would delete in server 900000000000000002 (${databasePath}): 1 message, 0 images, 0 runs, 0 tool calls, 0 answers, 0 steps, 0 reminders, 0 reports, 0 facts, 0 schedules, 0 knowledge documents.`,
      `Would delete in direct messages (${databasePath}): 1 message, 0 images, 0 runs, 0 tool calls, 0 answers, 0 steps, 0 reminders, 0 reports, 1 fact, 0 schedules, 0 knowledge documents.`,
      'Nothing was deleted: add --confirm to delete it.',
      '',
    ].join('\n'),
  );
  const confirmed = await forget('--user', leaver, '--confirm');
  expect(confirmed).toMatchObject({ code: 0, stderr: '' });
  expect(confirmed.stdout).toContain('Deleted in server 900000000000000002');
  const after = openStore(databasePath, { readOnly: true });
  expect(after.db.prepare('SELECT content FROM messages ORDER BY id').pluck().all()).toEqual([
    'words of the stayer 0',
    'words of the stayer 1',
    'words at the terminal',
  ]);
  expect(after.db.prepare('SELECT count(*) FROM forgets WHERE user_id = ?').pluck().get(leaver)).toBe(3);
  expect(after.db.prepare('SELECT fact FROM member_facts').pluck().all()).toEqual(['Call me Stayer']);
  expect(
    after.db.prepare("SELECT title FROM conversations WHERE key = 'discord:900000000000000077'").pluck().get(),
  ).toBe('A conversation (its first message was forgotten)');
  after.close();

  expect((await forget('--user', leaver)).stdout).toBe(`Nothing of user ${leaver} is kept: nothing to delete.\n`);
  expect(await forget()).toMatchObject({
    code: 1,
    stderr:
      'Whose data? Give --user ID (a Discord user id) or --terminal NAME. npm run forget -- --help says how to use it.\n',
  });
  const wrong = await forget('--user', 'bob');
  expect(wrong).toMatchObject({
    code: 1,
    stderr: '--user must be a Discord user id, 17 to 20 digits (it is "bob").\n',
  });
});

it("--terminal NAME forgets what NAME wrote in npm run chat, and nothing of Discord's conversations", async () => {
  const folder = mkdtempSync(join(tmpdir(), 'forget-'));
  const databasePath = join(folder, 'bot.sqlite');
  const store = openStore(databasePath);
  const conversation = store.db.prepare(
    'INSERT INTO conversations (key, title, guild_id, started_by_id, created_at) VALUES (?, ?, NULL, ?, 0)',
  );
  const insert = store.db.prepare(
    "INSERT INTO messages (conversation_id, role, author_id, content, created_at, token_count) VALUES (?, 'user', ?, ?, 0, 1)",
  );
  conversation.run('terminal:notes', 'my plans for the boat', 'terminal:ada');
  store.db.prepare("UPDATE conversations SET started_by_name = 'ada' WHERE key = 'terminal:notes'").run();
  insert.run(1, 'terminal:ada', 'my plans for the boat');
  insert.run(1, 'terminal:bob', 'words of bob at the terminal');
  conversation.run('discord:900000000000000077', 'Direct messages with Ada', leaver);
  insert.run(2, leaver, 'words in a DM');
  store.close();
  const forget = (...args: string[]) =>
    runScript('src/forget.ts', { args, cwd: folder, env: { DATABASE_PATH: databasePath } });

  const dry = await forget('--terminal', 'ada');
  expect(dry.stdout).toBe(
    [
      `Would delete in terminal conversations (${databasePath}): 1 message, 0 images, 0 runs, 0 tool calls, 0 answers, 0 steps, 0 reminders, 0 reports, 0 facts, 0 schedules, 0 knowledge documents.`,
      'Nothing was deleted: add --confirm to delete it.',
      '',
    ].join('\n'),
  );
  const confirmed = await forget('--terminal', 'ada', '--confirm');
  expect(confirmed).toMatchObject({ code: 0, stderr: '' });
  const after = openStore(databasePath, { readOnly: true });
  expect(after.db.prepare('SELECT content FROM messages ORDER BY id').pluck().all()).toEqual([
    'words of bob at the terminal',
    'words in a DM',
  ]);
  expect(
    after.db.prepare("SELECT title, started_by_name FROM conversations WHERE key = 'terminal:notes'").get(),
  ).toEqual({ title: 'A conversation (its first message was forgotten)', started_by_name: null });
  expect(after.db.prepare('SELECT guild_id, user_id FROM forgets').all()).toEqual([
    { guild_id: 'terminal', user_id: 'terminal:ada' },
  ]);
  after.close();
  expect(await forget('--terminal', 'ada', '--user', leaver)).toMatchObject({
    code: 1,
    stderr: 'Give --user or --terminal, not both.\n',
  });
});

it("forgets a user's use through their own install (USER_INSTALL), which is no server", async () => {
  const folder = mkdtempSync(join(tmpdir(), 'forget-'));
  const databasePath = join(folder, 'bot.sqlite');
  const store = openStore(databasePath);
  store.db
    .prepare('INSERT INTO conversations (key, title, guild_id, started_by_id, created_at) VALUES (?, ?, ?, ?, 0)')
    .run(`user-install:${leaver}:900000000000000055`, 'a question', '@user-install', leaver);
  store.db
    .prepare(
      "INSERT INTO messages (conversation_id, role, author_id, content, created_at, token_count) VALUES (1, 'user', ?, ?, 0, 1)",
    )
    .run(leaver, 'words asked through the install');
  store.close();
  const forget = (...args: string[]) =>
    runScript('src/forget.ts', { args, cwd: folder, env: { DATABASE_PATH: databasePath } });

  const confirmed = await forget('--user', leaver, '--confirm');
  expect(confirmed).toMatchObject({ code: 0, stderr: '' });
  expect(confirmed.stdout).toContain(`Deleted in user-installed use (${databasePath}): 1 message,`);
  expect(confirmed.stdout).not.toContain('server @user-install');
  const after = openStore(databasePath, { readOnly: true });
  expect(after.db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(0);
  after.close();
});
