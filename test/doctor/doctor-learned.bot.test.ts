/**
 * What `npm run doctor` leaves behind, as an operator meets it: the report says the bot will use
 * what it saved, `--learned` lists it per server and model, and `--forget MODEL` undoes it, with no
 * SQLite tool. The real scripts, in processes of their own, against a fake Ollama.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { followInstructions } from '../support/model-servers/brain.ts';
import { type FakeModelServer, startFakeModelServer } from '../support/fake-model.ts';
import * as quirks from '../support/model-servers/quirks.ts';
import { runScript } from '../support/run-process.ts';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('npm run doctor: what it saves, listed and forgotten', () => {
  it('says it changes the bot for good; --learned lists it and --forget undoes it, needing only DATABASE_PATH', async () => {
    server = await startFakeModelServer(quirks.ollamaIgnoresToolChoice);
    server.otherwise(followInstructions);
    const cwd = mkdtempSync(join(tmpdir(), 'doctor-learned-'));
    const databasePath = join(cwd, 'bot.sqlite');
    const checked = await runScript('src/doctor.ts', {
      cwd,
      env: { OPENAI_BASE_URL: server.baseURL, OPENAI_MODEL: 'test-model', DATABASE_PATH: databasePath },
    });
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain(`Saved in ${databasePath}, and used by the bot until forgotten`);
    expect(checked.stdout).toContain(
      'List what is remembered: npm run doctor -- --learned. Undo it: npm run doctor -- --forget test-model',
    );

    // The same model at another server, learned by the bot there.
    const store = openStore(databasePath);
    store.modelServers.setLearned('http://127.0.0.1:9/v1', 'test-model', JSON.stringify({ streaming: false }));
    store.close();

    // Only DATABASE_PATH: no model settings are needed to look or to undo.
    const env = { DATABASE_PATH: databasePath };
    const listed = await runScript('src/doctor.ts', { cwd, args: ['--learned'], env });
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')).toEqual([
      `Remembered in ${databasePath}, per model server and model (the bot applies these):`,
      `  ${server.baseURL}  model test-model`,
      '    learned: tools described in the prompt, calls read from the text',
      expect.stringMatching(/^ {4}doctor: checked \d{4}-\d\d-\d\d \d\d:\d\d UTC, works$/),
      '  http://127.0.0.1:9/v1  model test-model',
      '    learned: replies not streamed',
      '    doctor: never checked',
      'To forget one (its fixes and report): npm run doctor -- --forget MODEL [--server URL]',
      '',
    ]);

    const ambiguous = await runScript('src/doctor.ts', { cwd, args: ['--forget', 'test-model'], env });
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr.trim()).toBe(
      `Model "test-model" is remembered at 2 servers: name one with --server (${server.baseURL}, http://127.0.0.1:9/v1).`,
    );

    const forgot = await runScript('src/doctor.ts', {
      cwd,
      args: ['--forget', 'test-model', '--server', server.baseURL],
      env,
    });
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toContain(
      `Forgot model test-model at ${server.baseURL}: the fixes (tools described in the prompt, calls read from the text) and the doctor's report.`,
    );
    const after = openStore(databasePath, { readOnly: true });
    expect(after.modelServers.list().map((row) => row.server)).toEqual(['http://127.0.0.1:9/v1']);
    after.close();

    const again = await runScript('src/doctor.ts', {
      cwd,
      args: ['--forget', 'test-model', '--server', server.baseURL],
      env,
    });
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(
      `Nothing is remembered of model "test-model" at ${server.baseURL}: npm run doctor -- --learned lists what is.`,
    );
  });

  it('--learned with no database says so and makes none', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'doctor-learned-'));
    const databasePath = join(cwd, 'data', 'bot.sqlite');
    const listed = await runScript('src/doctor.ts', { cwd, args: ['--learned'], env: { DATABASE_PATH: databasePath } });
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim()).toBe(
      `There is no database at ${databasePath} (DATABASE_PATH): nothing is remembered.`,
    );
    expect(existsSync(databasePath)).toBe(false);
  });
});
