/**
 * The secrets test (secrets.bot.test.ts) for the secrets that MODELS_FILE and MCP_CONFIG read through
 * `${VAR}`: the models' keys, an MCP server's env and headers. Through the compiled bot against
 * the fakes, with the most verbose logs, they appear in no log line, no request Discord received
 * (the commands registered with their /model choices among them), no /settings show, and no
 * request body or URL the model server received; and a file that writes `${DISCORD_TOKEN}` where it
 * would be shown or sent stops the bot before it starts, naming the fields (issue 27).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { testServerConfig } from '../support/mcp-test-server.ts';
import { runScript } from '../support/run-process.ts';
import { apiError, finalAnswer, type ScriptedModel, startScriptedModel, toolCalls } from '../support/fake-model.ts';
import { leaksIn, piecesOf, uniqueSecret } from './secret-pieces.ts';

let discord: FakeDiscord | undefined;
let model: ScriptedModel | undefined;
let bot: BotProcess | undefined;
let echoing: Server | undefined;
afterEach(async () => {
  bot?.child.kill('SIGKILL');
  await bot?.exited;
  await discord?.close();
  await model?.close();
  await new Promise((resolve) => (echoing ? echoing.close(resolve) : resolve(undefined)));
  bot = discord = model = echoing = undefined;
});

/** A folder holding the files, named by the settings that point at them. */
function settingFiles(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'secret-files-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return folder;
}

/** An HTTP server that answers every request 401 with the request's headers in its body, as a careless proxy does. */
async function startEchoingServer(): Promise<string> {
  echoing = createServer((request, response) => {
    response.writeHead(401, { 'content-type': 'text/plain' });
    response.end(`unauthorized: ${JSON.stringify(request.headers)}`);
  });
  await new Promise<void>((resolve) => echoing!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(echoing.address() as AddressInfo).port}/mcp`;
}

/** Every place a secret must not reach that Discord saw: its requests (outside the login) and what it holds. */
function discordTexts(fake: FakeDiscord): string {
  const requests = fake.requests.map((request) => {
    const { authorization: _authorization, ...headers } = request.headers;
    return { path: request.path, query: request.query, body: request.body ?? null, headers };
  });
  const payloads = fake.gatewayPayloads.filter((payload) => payload.op !== 2 && payload.op !== 6);
  return JSON.stringify({ requests, payloads, commands: fake.registeredCommands() });
}

describe('the secrets of MODELS_FILE and MCP_CONFIG appear nowhere', () => {
  it('not in logs, Discord, /model choices, /settings show or the model server, through runs that fail', async () => {
    discord = await startFakeDiscord();
    model = await startScriptedModel();
    const secrets = {
      FAST_KEY: uniqueSecret('fast-key'),
      STRONG_KEY: uniqueSecret('strong-key'),
      MCP_ENV_TOKEN: uniqueSecret('mcp-env'),
      MCP_HEADER_TOKEN: uniqueSecret('mcp-header'),
    };
    const pieces = Object.entries(secrets).flatMap(([name, secret]) => piecesOf(name, secret, 9));
    const stdio = testServerConfig('notes', { mode: 'tell-env' });
    const folder = settingFiles({
      'models.yaml': `
models:
  - name: fast
    description: Quick
    base_url: ${model.baseURL}
    api_key: \${FAST_KEY}
    model: fast-model
  - name: strong
    description: Careful
    base_url: ${model.baseURL}
    api_key: \${STRONG_KEY}
    model: strong-model
`,
      'mcp.json': JSON.stringify({
        mcpServers: {
          notes: { command: stdio.command, args: stdio.args, env: { NOTES_TOKEN: '${MCP_ENV_TOKEN}' } },
          search: { url: await startEchoingServer(), headers: { Authorization: 'Bearer ${MCP_HEADER_TOKEN}' } },
        },
      }),
    });
    bot = await startBotProcess(discord, model, join(folder, 'bot.sqlite'), {
      ...secrets,
      MODELS_FILE: join(folder, 'models.yaml'),
      MCP_CONFIG: join(folder, 'mcp.json'),
      LOG_LEVEL: 'trace',
      OPENAI_LOG: 'debug',
      MODERATOR_ROLE_IDS: discord.roles.moderator,
    });
    const fake = discord;
    // The stdio server told its env on stderr, and the HTTP one refused with the headers echoed: both logged.
    await bot.waitForLog('MCP server stderr');
    await fake.waitFor(() => bot!.stdout.includes('"mcpServer":"search"'), { what: 'the HTTP server logged' });

    // A 401 that echoes the key, as OpenAI's does; then a tool call and an answer.
    model.enqueue(
      apiError(401, `Incorrect API key provided: ${secrets.FAST_KEY}.`, { code: 'invalid_api_key' }),
      toolCalls({ name: 'notes__echo', arguments: { text: 'hi' } }),
      finalAnswer('Done.'),
    );
    const ask = (content: string) =>
      fake.userSays({
        channelId: fake.channels.general,
        author: 'ada',
        content: `<@${fake.botUser.id}> ${content}`,
        mentions: [fake.botUser.id],
      });
    await ask('hello');
    await ask('echo hi');
    await fake.waitFor(
      () => fake.threads().length === 2 && fake.threads().every((thread) => fake.botMessages(thread.id).length > 0),
      { what: 'both runs answered' },
    );
    await fake.waitFor(() => fake.threads().some((thread) => fake.botMessages(thread.id).at(-1)?.content === 'Done.'), {
      what: 'the answer after the tool',
    });
    const shown = await fake.userRunsCommand({
      name: 'settings',
      subcommand: 'show',
      author: 'ada',
      channelId: fake.channels.general,
    });
    const settingsShown = (await shown.waitForReply()).content;
    expect(settingsShown).toContain('- strong: Careful');

    const choices = fake.registeredCommands().find((command) => command.name === 'model')?.options?.[0]?.choices;
    expect(choices?.map((choice) => choice.value)).toEqual(['fast', 'strong', 'inherit']);
    expect(leaksIn(pieces, bot.stdout), 'log lines').toEqual([]);
    expect(leaksIn(pieces, bot.stderr), 'stderr').toEqual([]);
    // What was masked was logged: the secrets were on their way to the log.
    expect(bot.stdout).toContain('starting with NOTES_TOKEN=[redacted]');
    expect(leaksIn(pieces, discordTexts(fake)), 'Discord: requests, commands and their choices').toEqual([]);
    expect(leaksIn(pieces, settingsShown), '/settings show').toEqual([]);
    expect(model.requests.length).toBe(3);
    expect(leaksIn(pieces, JSON.stringify(model.requests)), 'model request bodies').toEqual([]);
    expect(leaksIn(pieces, model.urls.join('\n')), 'model request URLs').toEqual([]);
  }, 60_000);
});

describe('a models file that writes ${DISCORD_TOKEN} where it is shown or sent', () => {
  it('stops the bot before it starts, naming each field, and the token reaches nothing', async () => {
    // Random, so that nothing else can hold it: the fake's own token is a fixed one.
    const tokenSecret = uniqueSecret('discord');
    const token = `${Buffer.from('300000000000000001').toString('base64')}.${tokenSecret}`;
    discord = await startFakeDiscord({ token });
    model = await startScriptedModel();
    const tokenPieces = piecesOf('the Discord token', tokenSecret);
    const folder = settingFiles({
      'models.yaml': `
models:
  - name: sneaky
    description: "\${DISCORD_TOKEN}"
    base_url: "${model.baseURL}?t=\${DISCORD_TOKEN}"
    model: "m-\${DISCORD_TOKEN}"
`,
    });
    const result = await runScript('src/main.ts', {
      cwd: folder,
      env: {
        MODELS_FILE: 'models.yaml',
        DISCORD_TOKEN: token,
        DISCORD_API_URL: discord.apiUrl,
        DATABASE_PATH: join(folder, 'bot.sqlite'),
        LOG_LEVEL: 'trace',
      },
      // Before the fix, the bot started: stopped here, what it had sent already is checked below.
      timeoutMs: 10_000,
    });
    const field = (name: string) =>
      `MODELS_FILE "models.yaml": model "sneaky": ${name}: \${DISCORD_TOKEN} cannot be used here: variables are read only in api_key`;
    // Soft: a bot that started anyway is shown leaking on every route at once.
    expect.soft(leaksIn(tokenPieces, result.stdout + result.stderr), 'output').toEqual([]);
    expect
      .soft(leaksIn(tokenPieces, discordTexts(discord)), 'Discord: requests, commands and their choices')
      .toEqual([]);
    expect.soft(model.requests).toEqual([]);
    expect(result.stderr).toContain(field('description'));
    expect(result.stderr).toContain(field('base_url'));
    expect(result.stderr).toContain(field('model'));
    expect(result.code).toBe(1);
  }, 30_000);
});
