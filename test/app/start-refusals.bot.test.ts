/**
 * `npm start` refusing to start, as an operator meets it (`node dist/main.js` with bad settings):
 * each refusal exits 1 with plain text on stderr naming every problem once, in one go, and never a
 * stack trace or a JSON log line; nothing hangs.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { type ProcessResult, runScript } from '../support/run-process.ts';

/** The settings every start here needs but the one under test: a token, and a model server that needs no key. */
const base = { DISCORD_TOKEN: 'token', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };

function start(env: Record<string, string>, files: Record<string, string> = {}): Promise<ProcessResult> {
  const cwd = mkdtempSync(join(tmpdir(), 'start-refusal-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
  return runScript('src/main.ts', { cwd, env: { ...base, ...env }, timeoutMs: 15_000 });
}

/** Exit 1, plain text on stderr: no stack trace, no JSON log line. Returns stderr. */
function refusal(result: ProcessResult): string {
  expect(result.code).toBe(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toMatch(/^\{/m);
  expect(result.stderr.trim()).not.toBe('');
  return result.stderr.trim();
}

/** The problems of the one settings message, each line after "  - ". */
const problemsOf = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('  - '))
    .map((line) => line.slice(4));

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('npm start refuses, naming each problem once', () => {
  it('lists a bad id list once, however many of its ids are bad', async () => {
    const stderr = refusal(await start({ MODERATOR_ROLE_IDS: '12,x' }));
    expect(problemsOf(stderr)).toEqual([
      'MODERATOR_ROLE_IDS must list Discord ids (17 to 20 digits), separated by commas (it is "12,x")',
    ]);
    expect(stderr).toMatch(/^Cannot start: the settings have a problem/);
  });

  it('names an unreadable SYSTEM_PROMPT_FILE beside an unreadable MCP_CONFIG', async () => {
    const stderr = refusal(await start({ MCP_CONFIG: 'gone.json', SYSTEM_PROMPT_FILE: 'gone.md' }));
    expect(problemsOf(stderr)).toEqual([
      'SYSTEM_PROMPT_FILE cannot be read (ENOENT): "gone.md"',
      'MCP_CONFIG cannot be read (ENOENT): "gone.json"',
    ]);
  });

  it('reports every problem of MODELS_FILE in one go: a literal key hides neither a bad name, a temperature out of range, nor an unknown default', async () => {
    const models = [
      'default: nowhere',
      'models:',
      '  - name: "bad name"',
      '    base_url: http://127.0.0.1:9/v1',
      '    api_key: sk-live-literal',
      '    model: m',
      '    temperature: 5',
    ].join('\n');
    const stderr = refusal(await start({ MODELS_FILE: 'models.yaml' }, { 'models.yaml': models }));
    expect(problemsOf(stderr)).toEqual([
      'MODELS_FILE "models.yaml": model "bad name": api_key must name a variable, as ${GROQ_API_KEY}, not hold the key itself',
      'MODELS_FILE "models.yaml": model "bad name": name: letters, digits and . _ : / -, at most 64 characters',
      'MODELS_FILE "models.yaml": model "bad name": temperature must be a number from 0 to 2',
      'MODELS_FILE "models.yaml": default: "nowhere" is not one of the models listed',
    ]);
    expect(stderr).not.toContain('sk-live-literal');
  });
});

describe('npm start refuses a database or settings file it cannot use, in plain words and without hanging', () => {
  it('a DATABASE_PATH under a file', async () => {
    const stderr = refusal(await start({ DATABASE_PATH: 'notes.txt/bot.sqlite' }, { 'notes.txt': 'x' }));
    expect(stderr).toContain('DATABASE_PATH is under "notes.txt", a file, not a folder (it is "notes.txt/bot.sqlite")');
  });

  it("a database made by another user (doctor run as yourself, the bot as systemd's User=bot): whose it is, and the fix", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'start-refusal-'));
    mkdirSync(join(cwd, 'data'));
    openStore(join(cwd, 'data', 'bot.sqlite')).close();
    chmodSync(cwd, 0o755);
    // As root (CI), the start runs as nobody; as anyone else, the folder is made read-only for its owner.
    const root = process.getuid?.() === 0;
    if (!root) chmodSync(join(cwd, 'data'), 0o555);
    const result = await runScript('src/main.ts', {
      cwd,
      env: { ...base, DATABASE_PATH: 'data/bot.sqlite' },
      timeoutMs: 15_000,
      ...(root ? { as: { uid: 65534, gid: 65534 } } : {}),
    });
    if (!root) chmodSync(join(cwd, 'data'), 0o755);
    const me = root ? 'nobody' : userInfo().username;
    expect(refusal(result)).toMatch(
      new RegExp(
        `^Cannot open the database data/bot\\.sqlite: data(/bot\\.sqlite)? belongs to ${root ? 'root' : me} \\(mode \\d+\\), and the bot runs as ${me}, who may not write to it\\. Give the database's folder to the user the bot runs as, then start again: sudo chown -R ${me}: data$`,
      ),
    );
  });

  it('a DATABASE_PATH under /proc, where no folder can be made', async () => {
    const stderr = refusal(await start({ DATABASE_PATH: '/proc/no-such-folder/bot.sqlite' }));
    expect(stderr).toBe(
      'Cannot open the database /proc/no-such-folder/bot.sqlite: its folder /proc/no-such-folder cannot be made (ENOENT). Point DATABASE_PATH at a folder the bot may write to.',
    );
  });

  it('a settings file that is not a regular file (a pipe no one writes to)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'start-refusal-'));
    execFileSync('mkfifo', [join(cwd, 'pipe.json')]);
    const stderr = refusal(
      await runScript('src/main.ts', { cwd, env: { ...base, MCP_CONFIG: 'pipe.json' }, timeoutMs: 15_000 }),
    );
    expect(problemsOf(stderr)).toEqual(['MCP_CONFIG cannot be read (not a regular file): "pipe.json"']);
  });
});

describe('npm start refuses in the same plain text when Discord cannot be reached', () => {
  it('one process', async () => {
    const port = await closedPort();
    const stderr = refusal(await start({ DISCORD_API_URL: `http://127.0.0.1:${port}/api` }));
    expect(stderr).toBe(
      `Cannot start: Discord could not be reached at http://127.0.0.1:${port}/api (connect ECONNREFUSED 127.0.0.1:${port}). Check the network, or DISCORD_API_URL.`,
    );
  });

  it('sharded: the shard manager asking how to shard', async () => {
    const port = await closedPort();
    const stderr = refusal(await start({ DISCORD_API_URL: `http://127.0.0.1:${port}/api`, SHARD_COUNT: '2' }));
    expect(stderr).toBe(
      `Cannot start: Discord could not be reached at http://127.0.0.1:${port}/api (connect ECONNREFUSED 127.0.0.1:${port}). Check the network, or DISCORD_API_URL.`,
    );
  });
});
