/**
 * `npm run chat` exports its runs too, with the OpenTelemetry variables read from `.env` as every
 * setting is (the SDK itself reads only the environment).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';
import { type FakeOtlp, startFakeOtlp } from '../support/fake-otlp.ts';
import { runScript } from '../support/run-process.ts';

let model: ScriptedModel;
let otlp: FakeOtlp;
beforeEach(async () => {
  model = await startScriptedModel();
  otlp = await startFakeOtlp();
});
afterEach(async () => {
  await model.close();
  await otlp.close();
});

it('npm run chat exports a run to the endpoint and protocol its .env names, before it exits', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'chat-otel-'));
  writeFileSync(
    join(cwd, '.env'),
    `OTEL_EXPORTER_OTLP_ENDPOINT=${otlp.url}\nOTEL_EXPORTER_OTLP_PROTOCOL=http/json\nOTEL_SERVICE_NAME=\n`,
  );
  model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '2+3*4' } }), finalAnswer('14'));
  const result = await runScript('src/chat.ts', {
    cwd,
    stdin: 'what is 2+3*4?\n',
    env: { OPENAI_BASE_URL: model.baseURL, USER: 'ada' },
  });
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
  expect(otlp.spans().map((span) => span.name)).toEqual(
    expect.arrayContaining(['invoke_agent discord-agent-bot', 'chat gpt-4.1-mini', 'execute_tool calculator']),
  );
  expect(otlp.spans()[0]!.resource).toMatchObject({ 'service.name': 'discord-agent-bot' });
  expect(otlp.exports.every((item) => item.protocol === 'http/json')).toBe(true);
});
