import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { runScript, scriptArgs } from '../support/run-process.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';

let discord: FakeDiscord | undefined;
let model: ScriptedModel | undefined;
afterEach(async () => {
  await discord?.close();
  await model?.close();
  discord = undefined;
  model = undefined;
});

const cwd = () => mkdtempSync(join(tmpdir(), 'start-'));

describe('npm start', () => {
  it('stops at once, with one clear message, without a token', async () => {
    const result = await runScript('src/main.ts', { cwd: cwd(), env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DISCORD_TOKEN is required to connect to Discord');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('says what to do when Discord rejects the token', async () => {
    discord = await startFakeDiscord();
    const result = await runScript('src/main.ts', {
      cwd: cwd(),
      env: {
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_TOKEN: 'not-the-token',
      },
    });

    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Discord rejected DISCORD_TOKEN. Copy the bot token again from the Developer Portal (your application → Bot → Reset Token) into .env.',
    );
    expect(result.stdout + result.stderr).not.toContain('not-the-token');
  });

  it('says how to turn on the Message Content intent when Discord refuses it (close code 4014)', async () => {
    discord = await startFakeDiscord({ disallowMessageContent: true });
    const result = await runScript('src/main.ts', {
      cwd: cwd(),
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', DISCORD_API_URL: discord.apiUrl, DISCORD_TOKEN: discord.token },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Turn on "Message Content Intent" in the Developer Portal');
    discord.takeProblems();
  });

  it('answers in a thread, logs one JSON line per event that matters without secrets, and stops on SIGTERM', async () => {
    discord = await startFakeDiscord();
    model = await startScriptedModel();
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }),
      finalAnswer('42', ['calculator']),
    );
    const apiKey = 'sk-unique-secret-key-123456';
    const child = spawn(process.execPath, scriptArgs('src/main.ts'), {
      cwd: cwd(),
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: apiKey,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_TOKEN: discord.token,
        LOG_LEVEL: 'debug',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const fake = discord;

    await fake.waitFor(() => stdout.includes('"msg":"ready"'), { timeoutMs: 15_000, what: 'the bot ready' });
    await fake.userSays({
      channelId: fake.channels.general,
      author: 'ada',
      content: `<@${fake.botUser.id}> 6*7?`,
      mentions: [fake.botUser.id],
    });
    const thread = await fake.waitFor(() => fake.threads()[0]);
    await fake.waitFor(() => fake.botMessages(thread.id).length === 2 && stdout.includes('run ended'), {
      what: 'the answer and its log line',
    });
    child.kill('SIGTERM');

    expect(await exited).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.msg === 'run started')).toMatchObject({
      channelId: thread.id,
      conversation: `discord:${thread.id}`,
      model: 'gpt-4.1-mini',
    });
    expect(lines.find((line) => line.msg === 'run ended')).toMatchObject({
      channelId: thread.id,
      status: 'answered',
      steps: 2,
      tokens: 240,
      durationMs: expect.any(Number),
    });
    // The packages' code came from the build's code cache (src/app/packages-script.ts).
    expect(lines.find((line) => line.msg === 'ready')).toMatchObject({ codeCache: 'used' });
    expect(lines.find((line) => line.msg === 'connected to Discord')).toMatchObject({
      invite: expect.stringContaining('permissions=309237763072'),
    });
    expect(stdout + stderr).not.toContain(apiKey);
    expect(stdout + stderr).not.toContain(fake.token);
    expect(stderr).toBe('');
  });
});
