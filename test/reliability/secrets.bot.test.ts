/**
 * Unique fake secrets (the Discord token, the OpenAI key) appear nowhere they do not belong: not in
 * the bot's stdout or stderr, not in the database or its WAL file, not in any request body or URL
 * the fakes received, not in a message or a /steps report. The bot runs as `npm start` runs it,
 * through runs that fail (a 401 and a 500 that echo the key, a tool error), a /steps view, a crash
 * and a restart. The secrets belong only in the Authorization headers (and the gateway's IDENTIFY
 * and RESUME), which are not checked.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { type ScriptedModel, apiError, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';

const botId = '300000000000000001';
// Random, so that a leak cannot come from anywhere else; not shaped like an OpenAI key ("sk-…"),
// so that only redaction of the configured value, not of the usual pattern, can hide it.
const discordSecret = `${randomBytes(6).toString('base64url')}.${randomBytes(28).toString('base64url')}`;
const discordToken = `${Buffer.from(botId).toString('base64')}.${discordSecret}`;
const apiKey = `fake-key-${randomBytes(24).toString('hex')}`;

/** The secrets, and long pieces of them (a leak may be cut or wrapped). */
const secretPieces: { name: string; text: string }[] = [
  { name: 'the Discord token', text: discordSecret },
  { name: 'the Discord token (start of its secret part)', text: discordSecret.slice(0, 16) },
  { name: 'the Discord token (end)', text: discordSecret.slice(-16) },
  { name: 'the API key', text: apiKey },
  ...[0, 16, 32].map((start) => ({
    name: `the API key (characters ${start + 9} to ${start + 25})`,
    text: apiKey.slice(9 + start, 9 + start + 16),
  })),
];

/** The secrets found in `haystack` (text, or raw bytes searched as UTF-8). */
function leaksIn(haystack: string | Buffer): string[] {
  return secretPieces
    .filter((piece) =>
      typeof haystack === 'string' ? haystack.includes(piece.text) : haystack.includes(Buffer.from(piece.text)),
    )
    .map((piece) => piece.name);
}

let discord: FakeDiscord;
let model: ScriptedModel;
let databasePath: string;
const processes: BotProcess[] = [];
/** What the database files held while the bot ran, and after it closed them. */
const snapshots: { what: string; bytes: Buffer }[] = [];
const stepReports: string[] = [];

const startBot = async () => {
  // The most verbose logs, the SDK's own debug log included: an operator chasing a problem sets them.
  const bot = await startBotProcess(discord, model, databasePath, {
    OPENAI_API_KEY: apiKey,
    OPENAI_LOG: 'debug',
    LOG_LEVEL: 'trace',
    MODERATOR_ROLE_IDS: discord.roles.moderator,
    TOOL_POSTS: 'all',
  });
  processes.push(bot);
  return bot;
};
const snapshot = (when: string) => {
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(databasePath + suffix))
      snapshots.push({ what: `bot.sqlite${suffix} ${when}`, bytes: readFileSync(databasePath + suffix) });
  }
};
const botTexts = (channelId: string) => discord.botMessages(channelId).map((message) => message.content);

beforeAll(async () => {
  discord = await startFakeDiscord({ token: discordToken });
  model = await startScriptedModel();
  databasePath = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'bot.sqlite');

  // 1. A 401 whose message echoes the key, as OpenAI's does ("Incorrect API key provided: …").
  model.enqueue(
    apiError(
      401,
      `Incorrect API key provided: ${apiKey}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      { code: 'invalid_api_key' },
    ),
  );
  let bot = await startBot();
  await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `<@${botId}> hello`,
    mentions: [botId],
  });
  const thread = await discord.waitFor(() => discord.threads()[0], { what: 'a thread' });
  await discord.waitFor(() => botTexts(thread.id).length === 1, { what: 'the 401 notice' });

  // 2. A 500 whose body carries the key (a proxy that echoes the request, say).
  model.enqueue(apiError(500, `upstream failed for Authorization: Bearer ${apiKey}`));
  await discord.userSays({ channelId: thread.id, author: 'ada', content: 'again?' });
  await discord.waitFor(() => botTexts(thread.id).length === 2, { what: 'the 500 notice' });

  // 3. A tool that fails, then an answer.
  model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '1/0' } }), finalAnswer('It has no value.'));
  await discord.userSays({ channelId: thread.id, author: 'ada', content: 'what is 1/0?' });
  await discord.waitFor(() => botTexts(thread.id).includes('It has no value.'), {
    what: 'the answer after a tool error',
  });

  // 4. A moderator reads the step logs: the table, and each run whole.
  const table = await discord.userRunsCommand({ name: 'steps', author: 'ada', channelId: thread.id });
  stepReports.push((await table.waitForReply()).content);
  const runIds = (() => {
    const store = openStore(databasePath);
    const ids = store.db.prepare('SELECT id FROM runs ORDER BY started_at, rowid').pluck().all() as string[];
    store.close();
    return ids;
  })();
  for (const runId of runIds) {
    const detail = await discord.userRunsCommand({
      name: 'steps',
      options: { run: runId },
      author: 'ada',
      channelId: thread.id,
    });
    const reply = await detail.waitForReply();
    stepReports.push(reply.content, ...reply.files.map((file) => file.content));
  }

  // 5. A crash while the model is asked, and a restart that takes the run up.
  model.enqueue({ hang: true });
  await discord.userSays({ channelId: thread.id, author: 'ada', content: 'one more' });
  await discord.waitFor(() => model.requests.length === 5, { what: 'the model asked' });
  bot.child.kill('SIGKILL');
  await bot.exited;
  model.enqueue(finalAnswer('Back again.'));
  bot = await startBot();
  await discord.waitFor(() => botTexts(thread.id).includes('Back again.'), {
    what: 'the answer after the restart',
    timeoutMs: 15_000,
  });

  // The files while the bot runs, then after it stopped and closed the database.
  snapshot('while the bot runs');
  bot.child.kill('SIGTERM');
  expect(await bot.exited).toBe(0);
  snapshot('after the bot closed it');
}, 90_000);

afterAll(async () => {
  for (const bot of processes) {
    bot.child.kill('SIGKILL');
    await bot.exited;
  }
  await discord?.close();
  await model?.close();
});

describe('unique fake secrets appear nowhere', () => {
  it('the runs went as planned: two failures on record, a tool error, an answer after the restart', () => {
    const store = openStore(databasePath);
    const runs = store.db.prepare('SELECT status, error_code, error FROM runs ORDER BY started_at, rowid').all() as {
      status: string;
      error_code: string | null;
      error: string | null;
    }[];
    const toolErrors = store.db
      .prepare(`SELECT count(*) FROM steps WHERE status = 'error' AND tool_name = 'calculator'`)
      .pluck()
      .get();
    store.close();
    expect(runs.map((run) => [run.status, run.error_code])).toEqual([
      ['failed', 'model-bad-credentials'],
      ['failed', 'model-unavailable'],
      ['answered', null],
      ['interrupted', null],
      ['answered', null],
    ]);
    // The server's words are kept for the operator, with the key taken out.
    expect(runs[0]!.error).toContain('Incorrect API key provided: [redacted]');
    expect(toolErrors).toBe(1);
    expect(stepReports.join('\n')).toContain('model-bad-credentials');
  });

  it('not in stdout or stderr', () => {
    expect(processes).toHaveLength(2);
    for (const [index, bot] of processes.entries()) {
      expect(bot.stdout.length, `process ${index + 1} logged`).toBeGreaterThan(0);
      expect(leaksIn(bot.stdout), `stdout of process ${index + 1}`).toEqual([]);
      expect(leaksIn(bot.stderr), `stderr of process ${index + 1}`).toEqual([]);
    }
  });

  it('not in the database file, its WAL file, or its shared-memory file, before and after closing', () => {
    expect(snapshots.map((file) => file.what)).toEqual(
      expect.arrayContaining([
        'bot.sqlite while the bot runs',
        'bot.sqlite-wal while the bot runs',
        'bot.sqlite after the bot closed it',
      ]),
    );
    expect(snapshots.find((file) => file.what === 'bot.sqlite-wal while the bot runs')!.bytes.length).toBeGreaterThan(
      0,
    );
    for (const file of snapshots) expect(leaksIn(file.bytes), file.what).toEqual([]);
  });

  it('not in any request body or URL the model server received', () => {
    expect(model.requests.length).toBeGreaterThanOrEqual(6);
    expect(leaksIn(JSON.stringify(model.requests)), 'request bodies').toEqual([]);
    expect(leaksIn(model.urls.join('\n')), 'URLs').toEqual([]);
  });

  it('not in any request Discord received, outside the Authorization header and the gateway login', () => {
    expect(discord.requests.length).toBeGreaterThan(10);
    for (const request of discord.requests) {
      const { authorization: _authorization, ...headers } = request.headers;
      const where = `${request.method} ${request.path}`;
      expect(
        leaksIn(JSON.stringify({ path: request.path, query: request.query, body: request.body ?? null, headers })),
        where,
      ).toEqual([]);
    }
    // The token is in every REST request's Authorization header: the check above looked past it.
    expect(discord.requests.some((request) => request.headers.authorization === `Bot ${discordToken}`)).toBe(true);
    const otherPayloads = discord.gatewayPayloads.filter((payload) => payload.op !== 2 && payload.op !== 6);
    expect(leaksIn(JSON.stringify(otherPayloads)), 'gateway payloads other than IDENTIFY and RESUME').toEqual([]);
  });

  it('not in a message the bot posted, nor in the step logs /steps showed', () => {
    const posted = [discord.channels.general, ...discord.threads().map((thread) => thread.id)].flatMap((channelId) =>
      discord.messages(channelId).map((message) => message.content),
    );
    expect(posted.length).toBeGreaterThan(3);
    expect(leaksIn(posted.join('\n')), 'messages').toEqual([]);
    expect(stepReports.length).toBeGreaterThanOrEqual(4);
    expect(leaksIn(stepReports.join('\n')), '/steps reports').toEqual([]);
  });
});
