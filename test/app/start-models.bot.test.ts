/**
 * `npm start` with MODELS_FILE: the compiled bot reads the file (keys through ${VAR}), builds a
 * client per model, and a channel's model set by a moderator takes that channel's runs to its server.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { runScript, scriptArgs } from '../support/run-process.ts';
import { finalAnswer, type ScriptedModel, startScriptedModel } from '../support/fake-model.ts';

let discord: FakeDiscord | undefined;
const models: ScriptedModel[] = [];
afterEach(async () => {
  await discord?.close();
  for (const model of models.splice(0)) await model.close();
  discord = undefined;
});

const modelsFile = (fast: string, strong: string) => `
default: fast
models:
  - name: fast
    base_url: ${fast}
    api_key: \${FAST_KEY}
    model: fast-model
  - name: strong
    description: Careful
    base_url: ${strong}
    api_key: \${STRONG_KEY}
    model: strong-model
`;

describe('npm start with MODELS_FILE', () => {
  it('stops at once when the file names a variable that is not set, saying which', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'start-'));
    writeFileSync(join(cwd, 'models.yaml'), modelsFile('http://127.0.0.1:9/v1', 'http://127.0.0.1:9/v1'));
    const result = await runScript('src/main.ts', {
      cwd,
      env: { MODELS_FILE: 'models.yaml', FAST_KEY: 'k', DISCORD_TOKEN: 't' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'MODELS_FILE "models.yaml": model "strong": api_key: ${STRONG_KEY} is not set (in the environment or .env)',
    );
  });

  it("takes a channel's runs to the model its moderators chose, and never shows a key", async () => {
    discord = await startFakeDiscord();
    const fast = await startScriptedModel();
    const strong = await startScriptedModel();
    models.push(fast, strong);
    const cwd = mkdtempSync(join(tmpdir(), 'start-'));
    writeFileSync(join(cwd, 'models.yaml'), modelsFile(fast.baseURL, strong.baseURL));
    const keys = { FAST_KEY: 'sk-fast-secret-0001', STRONG_KEY: 'sk-strong-secret-0002' };
    const child = spawn(process.execPath, scriptArgs('src/main.ts'), {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MODELS_FILE: 'models.yaml',
        ...keys,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_TOKEN: discord.token,
        MODERATOR_ROLE_IDS: discord.roles.moderator,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const fake = discord;
    await fake.waitFor(() => stdout.includes('"msg":"ready"'), { timeoutMs: 15_000, what: 'the bot ready' });
    expect(stdout).toContain('"models":["fast","strong"]');

    const set = await fake.userRunsCommand({
      name: 'settings',
      subcommand: 'model',
      author: 'ada',
      channelId: fake.channels.random,
      options: { model: 'strong' },
    });
    expect((await set.waitForReply()).content).toBe('Model for this channel and its threads: **strong**.');
    fast.enqueue(finalAnswer('From fast.'));
    strong.enqueue(finalAnswer('From strong.'));
    for (const channelId of [fake.channels.general, fake.channels.random])
      await fake.userSays({
        channelId,
        author: 'ada',
        content: `<@${fake.botUser.id}> hello`,
        mentions: [fake.botUser.id],
      });
    await fake.waitFor(
      () =>
        fake.threads().length === 2 &&
        fake.threads().every((thread) => fake.botMessages(thread.id).length === 1) &&
        fake.threads(),
      { what: 'both answers' },
    );
    const answerIn = (channelId: string) => {
      const thread = fake.threads().find((candidate) => candidate.parent_id === channelId)!;
      return fake.botMessages(thread.id)[0]!.content;
    };
    expect(answerIn(fake.channels.general)).toContain('From fast.');
    expect(answerIn(fake.channels.random)).toContain('From strong.');
    expect(fast.requests.map((request) => request.model)).toEqual(['fast-model']);
    expect(strong.requests.map((request) => request.model)).toEqual(['strong-model']);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const key of Object.values(keys)) expect(stdout + stderr).not.toContain(key);
  });
});
