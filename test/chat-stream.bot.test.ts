/**
 * STREAM_ANSWERS in `npm run chat`: the answer printed as the model writes it, as in Discord
 * (issue 38: chat never asked for a stream). The real chat process against a fake model whose
 * streamed reply stops half-way until the test has seen the first half printed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from './support/fake-model.ts';
import { answer } from './support/model-servers/brain.ts';
import { compliant } from './support/model-servers/quirks.ts';
import { runScript, scriptArgs } from './support/run-process.ts';
import { waitUntil } from './support/wait-until.ts';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const story = 'Once upon a time there was a small red square, and it rolled all the way down the hill.';

describe('npm run chat with STREAM_ANSWERS', () => {
  it('on (the default): asks for a stream and prints the answer while it is still being written', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    // The chunks: the role, then final_answer's id and name, then its arguments 7 characters at a time.
    server = await startFakeModelServer(compliant, { streamPause: { afterChunks: 10, until: () => released } });
    server.enqueue(answer(story));
    const cwd = mkdtempSync(join(tmpdir(), 'chat-stream-'));
    const chat = spawn(process.execPath, scriptArgs('src/chat.ts'), {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_MODEL: 'test-model',
        USER: 'ada',
      },
    });
    let stdout = '';
    chat.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise((resolve) => chat.on('close', resolve));
    chat.stdin.end('tell me a story\n');

    await waitUntil(() => stdout.startsWith('bot: Once'), 'the start of the answer printed', 15_000);
    // The reply is held half-way: what is printed is the start of the answer, not all of it.
    expect(story.startsWith(stdout.slice('bot: '.length))).toBe(true);
    expect(stdout).not.toContain('hill');
    release();

    expect(await exited).toBe(0);
    expect(stdout).toBe(`bot: ${story}\n`);
    expect(server.requests[0]!.stream).toBe(true);
  });

  it('off: the reply is read whole, and the answer printed once', async () => {
    server = await startFakeModelServer(compliant);
    server.enqueue(answer(story));
    const cwd = mkdtempSync(join(tmpdir(), 'chat-stream-'));
    const result = await runScript('src/chat.ts', {
      cwd,
      stdin: 'tell me a story\n',
      env: { OPENAI_BASE_URL: server.baseURL, OPENAI_MODEL: 'test-model', USER: 'ada', STREAM_ANSWERS: 'off' },
    });
    expect(result.stdout).toBe(`bot: ${story}\n`);
    expect(server.requests[0]!.stream).toBeUndefined();
  });
});
