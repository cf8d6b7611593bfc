/**
 * Strings crafted for SQL injection and for FTS5's query syntax, with NUL bytes among them, in
 * every text field that reaches the database: message content, display names, thread names, slash
 * command options (/ask, /tool calculator, /tool search_conversation, /tool remind_me, /steps),
 * tool arguments from the model (search_conversation, search_server, remind_me), and so search
 * queries. Each is stored verbatim and harms nothing: the schema is the same, the database and its
 * full-text index pass their integrity checks, and every count is what was sent.
 */
import { afterEach, expect, it } from 'vitest';
import { threadName } from '../../src/posts/render.ts';
import {
  type BotWorld,
  type LogLine,
  mentionOf,
  recordingLogger,
  startBotWorld,
  waitForBotPosts,
} from '../support/bot-harness.ts';
import type { RunCommandInput } from '../support/fake-discord.ts';
import { finalAnswer, toolCalls } from '../support/fake-model.ts';

const attacks = [
  `'; DROP TABLE messages; --`,
  `" OR 1=1 --`,
  `Robert'); DROP TABLE conversations;--`,
  `') UNION SELECT id, key, title FROM conversations --`,
  `NEAR(drop table, 2)`,
  `"*`,
  `content:secret OR title:* AND NOT ^x`,
  `a\u0000b'; DELETE FROM runs; --\u0000`,
  `%_\\ LIKE '%' ESCAPE '\\'`,
  `1; PRAGMA writable_schema = 1; --`,
];

let world: BotWorld;
let logs: LogLine[];
afterEach(async () => {
  await world?.close();
});

const schema = () => world.store.db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
const count = (sql: string, ...params: unknown[]) =>
  world.store.db
    .prepare(sql)
    .pluck()
    .get(...params) as number;

it(
  `stores ${attacks.length} injection strings verbatim in every text field, and they harm nothing`,
  { timeout: 60_000 },
  async () => {
    const recording = recordingLogger();
    logs = recording.lines;
    world = await startBotWorld({}, {}, {}, { databaseTools: true, logger: recording.logger });
    const { discord, model } = world;
    // Unscripted runs echo what they were asked.
    model.otherwise((request) =>
      finalAnswer(`echo: ${request.messages.findLast((message) => message.role === 'user')?.content}`),
    );
    const before = schema();

    for (const [index, attack] of attacks.entries()) {
      const user = { id: `40000000000000${String(1000 + index)}`, username: attack };
      // A mention by someone whose display name is the attack, whose content is the attack: the model
      // searches for it and sets a reminder with it.
      model.enqueue(
        toolCalls(
          { name: 'search_conversation', arguments: { query: attack, limit: null } },
          { name: 'remind_me', arguments: { text: attack, in_minutes: 60, at: null } },
        ),
        finalAnswer(attack),
      );
      const started = await discord.userSays({
        channelId: discord.channels.general,
        author: user,
        content: `${mentionOf(world)} ${attack}`,
        mentions: [discord.botUser.id],
      });
      const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === started.id));
      await waitForBotPosts(world, thread.id, 2);
      await discord.userSays({ channelId: thread.id, author: 'bob', content: attack });
      await waitForBotPosts(world, thread.id, 3);

      // Slash command options.
      const commandInputs: Omit<RunCommandInput, 'author' | 'channelId'>[] = [
        { name: 'tool', subcommand: 'search_conversation', options: { query: attack } },
        { name: 'tool', subcommand: 'calculator', options: { expression: attack } },
        { name: 'tool', subcommand: 'remind_me', options: { text: attack, in_minutes: 60 } },
        { name: 'steps', options: { run: attack } },
      ];
      for (const input of commandInputs) {
        const interaction = await discord.userRunsCommand({ ...input, author: 'ada', channelId: thread.id });
        const reply = await interaction.waitForReply();
        expect(reply.content, `${input.name} ${input.subcommand ?? ''}`).not.toMatch(/Something went wrong/);
      }
      const ask = await discord.userRunsCommand({
        name: 'ask',
        options: { prompt: attack },
        author: user,
        channelId: discord.channels.random,
      });
      await ask.waitForReply();

      // A thread a person made and named, adopted by a mention.
      const named = await discord.createThread(discord.channels.random, attack, user.id);
      await discord.userSays({
        channelId: named.id,
        author: user,
        content: `${mentionOf(world)} ${attack}`,
        mentions: [discord.botUser.id],
      });
      await waitForBotPosts(world, named.id, 1);
      await world.bot.queues.idle();

      // Stored verbatim: content, display name, thread names.
      expect(
        count("SELECT count(*) FROM messages WHERE role = 'user' AND content = ?", attack),
        `user messages of "${attack}"`,
      ).toBe(4);
      expect(
        count("SELECT count(*) FROM messages WHERE role = 'user' AND content = ? AND author_name = ?", attack, attack),
      ).toBe(3);
      expect(world.store.conversations.byKey(`discord:${named.id}`)!.title).toBe(attack);
      expect(world.store.conversations.byKey(`discord:${thread.id}`)!.title).toBe(threadName(attack, attack));
      expect(thread.name).toBe(threadName(attack, attack));
      expect(world.store.schedules.pendingRemindersOf('200000000000000001')).toBe(index + 1);
      expect(count("SELECT count(*) FROM schedules WHERE kind = 'reminder' AND prompt = ?", attack)).toBe(2);
    }

    // A moderator's run: the model searches the whole server for each string.
    const searches = attacks.map((attack) => ({ name: 'search_server', arguments: { query: attack, limit: 20 } }));
    model.enqueue(toolCalls(...searches.slice(0, 5)), toolCalls(...searches.slice(5)), finalAnswer('Searched.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} search for all of them`,
      mentions: [discord.botUser.id],
    });
    await discord.waitFor(() => discord.botMessages().some((post) => post.content === 'Searched.'), {
      what: 'the searches done',
    });
    await world.bot.queues.idle();

    // Harmless: the same schema, intact data and index, every count right.
    expect(schema()).toEqual(before);
    expect(world.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    world.store.db.prepare("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')").run();
    const threadsMade = attacks.length * 3 + 1;
    expect(count('SELECT count(*) FROM conversations WHERE key NOT LIKE ?', 'discord:tool:%')).toBe(threadsMade);
    expect(count("SELECT count(*) FROM messages WHERE role = 'user'")).toBe(attacks.length * 4 + 1);
    expect(count("SELECT count(*) FROM schedules WHERE kind = 'reminder'")).toBe(attacks.length * 2);
    // Every search ran without an error, and found the message when the string has words to find.
    const steps = world.store.db
      .prepare("SELECT tool_name, arguments, status, result FROM steps WHERE tool_name LIKE 'search_%'")
      .all() as { tool_name: string; arguments: string; status: string; result: string }[];
    expect(steps).toHaveLength(attacks.length * 3);
    for (const step of steps) {
      const query = (JSON.parse(step.arguments) as { query: string }).query;
      expect(step.status, `${step.tool_name} ${query}`).toBe('ok');
      if (/[\p{L}\p{N}]/u.test(query))
        expect(step.result, `${step.tool_name} ${query}`).not.toBe('No message matches.');
    }
    expect(logs.filter((line) => line.level === 'error')).toEqual([]);
  },
);
