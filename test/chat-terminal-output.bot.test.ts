/**
 * What `npm run chat` tells the person at the terminal, and leaves for `npm run steps`: an answer
 * printed is delivered, and an `/image` that cannot go with a message is said, never dropped. The
 * real scripts in processes of their own, against the scripted model.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { png } from './support/images.ts';
import { runScript } from './support/run-process.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel } from './support/fake-model.ts';

let model: ScriptedModel;
let cwd: string;
beforeEach(async () => {
  model = await startScriptedModel();
  cwd = mkdtempSync(join(tmpdir(), 'chat-output-'));
});
afterEach(async () => {
  await model.close();
});

const chat = (stdin: string, env: Record<string, string> = {}) =>
  runScript('src/chat.ts', { cwd, stdin, env: { OPENAI_BASE_URL: model.baseURL, USER: 'ada', ...env } });

describe('npm run chat, then npm run steps', () => {
  it('an answer printed at the terminal is delivered, and the JSON lists message ids as arrays', async () => {
    model.enqueue(finalAnswer('Hello, Ada.'));
    const answered = await chat('hello\n');
    expect(answered.stdout).toContain('bot: Hello, Ada.');

    const json = await runScript('src/steps.ts', { cwd, args: ['--json'], env: {} });
    const [run] = (JSON.parse(json.stdout) as { runs: Record<string, unknown>[] }).runs;
    expect(run).toMatchObject({ delivery: 'posted', posted_message_ids: [], live_message_ids: [] });
    expect(run!.delivered_at).toEqual(expect.any(Number));

    const detail = await runScript('src/steps.ts', { cwd, args: ['--run', String(run!.id)], env: {} });
    expect(detail.stdout).toMatch(/^delivery +posted$/m);
    expect(detail.stdout).not.toContain('not yet');
  });
});

describe('npm run chat: /image', () => {
  it('says a missing file is missing to a model that cannot see images too', async () => {
    model.enqueue(finalAnswer('No image.'));
    const result = await chat('/image missing.png\nwhat is this?\n', { MODEL_VISION: 'off' });
    expect(result.stdout.split('\n')[0]).toBe('(not attached: cannot read missing.png: ENOENT)');
  });

  it('says an /image on the last line was not sent, rather than dropping it', async () => {
    writeFileSync(join(cwd, 'pic.png'), png(8, 8));
    const result = await chat('/image pic.png\n', { MODEL_VISION: 'on' });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      '(attached pic.png, 8×8: it goes with your next message)',
      '(not sent: the input ended before a message for the 1 image(s) of /image)',
      '',
    ]);
  });
});
