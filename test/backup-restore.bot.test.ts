/**
 * `npm run backup` and `npm run restore` as an operator runs them: the compiled scripts as
 * processes, against a real bot process (`npm start`'s dist/main.js) and the fakes. A backup taken
 * while the bot is in the middle of a run is restored, and the bot started on it carries on with
 * its conversations.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { latestVersion } from '../db/migrations.ts';
import { openStore } from '../db/store.ts';
import { type BotProcess, startBotProcess } from './support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from './support/fake-discord.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel } from './support/fake-model.ts';
import { runScript } from './support/run-process.ts';

let discord: FakeDiscord;
let model: ScriptedModel;
let folder: string;
let databasePath: string;
const bots: BotProcess[] = [];
beforeEach(async () => {
  discord = await startFakeDiscord();
  model = await startScriptedModel();
  folder = mkdtempSync(join(tmpdir(), 'backup-'));
  databasePath = join(folder, 'bot.sqlite');
});
afterEach(async () => {
  for (const bot of bots.splice(0)) {
    if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill('SIGKILL');
    await bot.exited;
  }
  await discord.close();
  await model.close();
});

const operator = (script: 'src/backup.ts' | 'src/restore.ts', ...args: string[]) =>
  runScript(script, { args, cwd: folder, env: { DATABASE_PATH: databasePath } });

async function startBot(): Promise<BotProcess> {
  const bot = await startBotProcess(discord, model, databasePath);
  bots.push(bot);
  return bot;
}

const texts = (path: string) => {
  const store = openStore(path, { readOnly: true });
  const contents = store.db.prepare('SELECT content FROM messages ORDER BY id').pluck().all() as string[];
  store.close();
  return contents;
};

describe('npm run backup and npm run restore', () => {
  it(
    'a backup taken while the bot answers is restored, and the bot started on it carries on with its conversations',
    { timeout: 90_000 },
    async () => {
      const bot = await startBot();
      const mention = `<@${discord.botUser.id}>`;
      model.enqueue(finalAnswer('First answer.'));
      await discord.userSays({
        channelId: discord.channels.general,
        author: 'ada',
        content: `${mention} first question`,
        mentions: [discord.botUser.id],
      });
      const thread = await discord.waitFor(() => discord.threads()[0]);
      await discord.waitFor(() => discord.botMessages(thread.id).length === 1, { what: 'the first answer' });
      // The second run stays in the middle of its model call while the backup is taken.
      model.enqueue({ hang: true });
      await discord.userSays({ channelId: thread.id, author: 'ada', content: 'second question' });
      await discord.waitFor(() => model.requests.length === 2, { what: 'the second model call' });

      const backup = join(folder, 'backups', 'monday.sqlite');
      const noFolder = await operator('src/backup.ts', '--to', backup);
      expect(noFolder).toMatchObject({ code: 1, stdout: '' });
      expect(noFolder.stderr.trim()).toBe(
        `Cannot back up ${databasePath} to ${backup}: Cannot save backup because the directory does not exist. No backup was written.`,
      );
      mkdirSync(join(folder, 'backups'));
      const taken = await operator('src/backup.ts', '--to', backup);
      expect(taken.stderr).toBe('');
      expect(taken.code).toBe(0);
      expect(taken.stdout.trim()).toBe(
        `Backed up ${databasePath} to ${backup}: schema version ${latestVersion}, 1 conversations, 3 messages.`,
      );
      // One file: no WAL beside it to forget when it is copied elsewhere.
      expect(existsSync(`${backup}-wal`)).toBe(false);
      const again = await operator('src/backup.ts', '--to', backup);
      expect(again).toMatchObject({ code: 1, stdout: '' });
      expect(again.stderr.trim()).toBe(
        `${backup} exists already: a backup never replaces a file. Choose another name.`,
      );

      // While the bot runs, a restore is refused and changes nothing.
      await discord.userSays({ channelId: thread.id, author: 'ada', content: 'said after the backup' });
      await discord.waitFor(() => texts(databasePath).includes('said after the backup'), {
        what: 'the message stored',
      });
      const refused = await operator('src/restore.ts', '--from', backup);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toMatch(
        new RegExp(
          `^${databasePath}: A bot \\(process ${bot.child.pid} on .+\\) is using this database: stop it first\\. Stop the bot before a restore\\. Nothing was restored\\.$`,
        ),
      );
      expect(texts(databasePath)).toContain('said after the backup');

      bot.child.kill('SIGKILL');
      await bot.exited;
      const restored = await operator('src/restore.ts', '--from', backup);
      expect(restored.stderr).toBe('');
      expect(restored.code).toBe(0);
      expect(restored.stdout.trim()).toBe(
        `Restored ${databasePath} from ${backup}: schema version ${latestVersion}, 1 conversations, 3 messages.`,
      );
      expect(texts(databasePath)).toEqual([
        expect.stringContaining('first question'),
        expect.stringContaining('First answer.'),
        expect.stringContaining('second question'),
      ]);
      expect(texts(databasePath)).not.toContain('said after the backup');

      // The run the backup caught in the middle is taken up by the bot started on the restored file;
      // then the message posted after the backup is caught up from Discord and answered, in turn.
      model.enqueue(finalAnswer('Second answer.'), finalAnswer('Third answer.'));
      await startBot();
      await discord.waitFor(() => discord.botMessages(thread.id).length === 3, { what: 'the two answers owed' });
      expect(discord.botMessages(thread.id).map((message) => message.content)).toEqual([
        'First answer.',
        'Second answer.',
        'Third answer.',
      ]);
      const takenUp = JSON.stringify(model.requests[2]);
      for (const words of ['first question', 'First answer.', 'second question']) expect(takenUp).toContain(words);
      expect(JSON.stringify(model.requests[3])).toContain('said after the backup');
    },
  );

  it('with shards, backs up each shard database to a file of its own, and restores each to its shard', async () => {
    const shardOne = join(folder, 'bot.shard-1.sqlite');
    for (const [path, title] of [
      [databasePath, 'on shard 0'],
      [shardOne, 'on shard 1'],
    ] as const) {
      const store = openStore(path);
      store.conversations.ensure({
        key: `terminal:${title}`,
        title,
        guildId: null,
        channelId: null,
        threadId: null,
        startedById: null,
        startedByName: null,
      });
      store.close();
    }
    const backup = join(folder, 'nightly.sqlite');
    const taken = await operator('src/backup.ts', '--to', backup);
    expect(taken.code).toBe(0);
    expect(taken.stdout).toContain(`Backed up ${shardOne} to ${join(folder, 'nightly.shard-1.sqlite')}:`);

    databasePath = join(folder, 'elsewhere', 'bot.sqlite');
    const restored = await operator('src/restore.ts', '--from', backup);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    const titles = (path: string) => {
      const store = openStore(path, { readOnly: true });
      const all = store.db.prepare('SELECT title FROM conversations').pluck().all();
      store.close();
      return all;
    };
    expect(titles(databasePath)).toEqual(['on shard 0']);
    expect(titles(join(folder, 'elsewhere', 'bot.shard-1.sqlite'))).toEqual(['on shard 1']);
  });

  it('restore refuses a backup from a newer version of the bot, or a file that is no bot database', async () => {
    const future = join(folder, 'future.sqlite');
    const db = new BetterSqlite3(future);
    db.exec('CREATE TABLE conversations (id INTEGER); CREATE TABLE messages (id INTEGER)');
    db.pragma(`user_version = ${latestVersion + 1}`);
    db.close();
    const refused = await operator('src/restore.ts', '--from', future);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `The backup ${future} has schema version ${latestVersion + 1}, but this version of the bot knows only up to ${latestVersion}: restore it with the version that wrote it. Nothing was restored.`,
    );
    expect(existsSync(databasePath)).toBe(false);

    const text = join(folder, 'notes.txt');
    writeFileSync(text, 'not a database at all, just some words that are long enough to fill a header page.');
    const notDatabase = await operator('src/restore.ts', '--from', text);
    expect(notDatabase.code).toBe(1);
    expect(notDatabase.stderr.trim()).toMatch(
      new RegExp(`^${text} is not a SQLite database \\(.+\\)\\. Nothing was restored\\.$`),
    );
    const missing = await operator('src/restore.ts');
    expect(missing).toMatchObject({ code: 1, stderr: 'Missing --from FILE: the backup to restore.\n' });
  });

  it('says how it is used on --help, and refuses an option it does not know with a line saying where to look', async () => {
    const help = await operator('src/backup.ts', '--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: npm run backup -- --to FILE\n/);
    const unknown = await operator('src/restore.ts', '--form', 'x.sqlite');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr.trim()).toBe("Unknown option '--form'. npm run restore -- --help says how to use it.");
  });

  it('a restore from a backup older than a forget applies the forget again, says so, and keeps its record', async () => {
    const ada = '111111111111111111';
    const server = '900000000000000001';
    const store = openStore(databasePath);
    store.db
      .prepare('INSERT INTO conversations (key, title, guild_id, created_at) VALUES (?, ?, ?, 0)')
      .run('discord:1', 'a thread', server);
    const insert = store.db.prepare(
      "INSERT INTO messages (conversation_id, role, author_id, content, created_at, token_count) VALUES (1, 'user', ?, ?, 0, 1)",
    );
    insert.run(ada, 'my codeword is heliotrope');
    insert.run('222222222222222222', 'words of another member');
    store.close();
    const forget = (...args: string[]) =>
      runScript('src/forget.ts', { args, cwd: folder, env: { DATABASE_PATH: databasePath } });
    const forgotten = (path: string) => {
      const restored = openStore(path, { readOnly: true });
      const state = {
        texts: restored.db.prepare('SELECT content FROM messages ORDER BY id').pluck().all(),
        forgets: restored.db.prepare('SELECT guild_id, user_id FROM forgets').all(),
      };
      restored.close();
      return state;
    };

    const before = join(folder, 'before.sqlite');
    expect((await operator('src/backup.ts', '--to', before)).code).toBe(0);
    expect((await forget('--user', ada, '--confirm')).code).toBe(0);
    const after = join(folder, 'after.sqlite');
    expect((await operator('src/backup.ts', '--to', after)).code).toBe(0);

    const restored = await operator('src/restore.ts', '--from', before);
    expect(restored).toMatchObject({ code: 0, stderr: '' });
    expect(restored.stdout).toMatch(
      new RegExp(
        `Forgotten again \\(the backup is older than the forget of [^)]+\\): user ${ada} in server ${server}: 1 message, 0 images,`,
      ),
    );
    // npm run forget forgets in every server and in the DMs: each forget's record is carried over.
    const records = [
      { guild_id: server, user_id: ada },
      { guild_id: '@me', user_id: ada },
    ];
    expect(restored.stdout).not.toContain('direct messages');
    expect(forgotten(databasePath)).toEqual({ texts: ['words of another member'], forgets: records });
    expect((await forget('--user', ada)).stdout).toBe(`Nothing of user ${ada} is kept: nothing to delete.\n`);

    // A backup made after the forget holds its record: nothing to apply again, nothing said.
    const again = await operator('src/restore.ts', '--from', after);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).not.toContain('Forgotten again');
    expect(forgotten(databasePath).forgets).toEqual(records);
  });

  it("a restore from a backup older than a member's /memory forget (one fact, or all) keeps those facts gone, and says so", async () => {
    const ada = '111111111111111111';
    const server = '900000000000000001';
    const store = openStore(databasePath);
    const keep = (fact: string, place = server) => store.memberFacts.keep(place, ada, fact, 50);
    keep('Uses METRICUNITS42');
    keep('Is called SAM77');
    keep('Likes tea');
    keep('In DMs: likes DMFACT9', '@me');
    store.close();
    const facts = (path: string) => {
      const restored = openStore(path, { readOnly: true });
      const rows = restored.db.prepare('SELECT guild_id, fact FROM member_facts ORDER BY id').all();
      restored.close();
      return rows;
    };

    const before = join(folder, 'before.sqlite');
    expect((await operator('src/backup.ts', '--to', before)).code).toBe(0);
    // What /memory forget does: one fact in the server, then all of hers in her DMs.
    const live = openStore(databasePath);
    const [, called] = live.memberFacts.of(server, ada);
    expect(live.memberFacts.remove(called!.id, server, ada)).toBe(true);
    expect(live.memberFacts.removeAll('@me', ada)).toBe(1);
    // A fact remembered after the forget is not one it forgot.
    live.memberFacts.keep('@me', ada, 'Remembered later', 50);
    live.close();

    const restored = await operator('src/restore.ts', '--from', before);
    expect(restored).toMatchObject({ code: 0, stderr: '' });
    expect(restored.stdout).toContain(
      "Forgotten again (the backup is older than members' /memory forget): 2 remembered facts.",
    );
    expect(facts(databasePath)).toEqual([
      { guild_id: server, fact: 'Uses METRICUNITS42' },
      { guild_id: server, fact: 'Likes tea' },
    ]);
    // The journal names no fact's words.
    expect(readFileSync(`${databasePath}.forgotten-facts`, 'utf8')).not.toMatch(/SAM77|DMFACT9/);
  });
});
