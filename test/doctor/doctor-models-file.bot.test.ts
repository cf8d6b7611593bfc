/**
 * `npm run doctor -- --model NAME` with MODELS_FILE, as an operator runs it: it speaks of the
 * fields of that model in the file (not of OPENAI_BASE_URL, which it did not read), and needs the
 * key of that model alone.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScript } from '../support/run-process.ts';

describe('npm run doctor -- --model NAME', () => {
  it("names the model's fields in MODELS_FILE, and needs no other model's key", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const cwd = mkdtempSync(join(tmpdir(), 'doctor-models-'));
    writeFileSync(
      join(cwd, 'models.yaml'),
      [
        'models:',
        '  - name: fast',
        '    base_url: https://api.groq.com/openai/v1',
        '    api_key: ${GROQ_API_KEY}',
        '    model: llama-3.1-8b-instant',
        '  - name: local',
        `    base_url: http://127.0.0.1:${port}/v1`,
        '    model: qwen3:8b',
      ].join('\n'),
    );
    // GROQ_API_KEY is not set: "fast" is not the model checked.
    const run = await runScript('src/doctor.ts', {
      cwd,
      args: ['--model', 'local'],
      env: { MODELS_FILE: 'models.yaml', DATABASE_PATH: join(cwd, 'bot.sqlite') },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Profile: OpenAI-compatible server (found from base_url of "local" in MODELS_FILE)');
    expect(run.stdout).toContain(
      'cannot work: check base_url of "local" in MODELS_FILE, and that the server is running',
    );
    expect(run.stdout).not.toContain('OPENAI_BASE_URL');
  });
});
