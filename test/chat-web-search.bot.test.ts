/**
 * `npm run chat` with web search (a fake SearXNG on 127.0.0.1): the terminal answer lists the
 * sources the run's search showed, numbered, and leaves out one the model made up.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startFakeSearxng } from './support/fake-search/searxng.ts';
import type { FakeSearch } from './support/fake-search/server.ts';
import { type ScriptedModel, startScriptedModel, toolCalls } from './support/fake-model.ts';
import { runScript } from './support/run-process.ts';

let model: ScriptedModel | undefined;
let provider: FakeSearch | undefined;
afterEach(async () => {
  await model?.close();
  await provider?.close();
});

it('npm run chat prints the checked sources under the answer', { timeout: 60_000 }, async () => {
  model = await startScriptedModel();
  provider = await startFakeSearxng([
    { title: 'Launch', url: 'https://news.example.org/launch', snippet: 'It reached orbit.' },
  ]);
  model.enqueue(
    toolCalls({ name: 'web_search', arguments: { query: 'launch', count: null, freshness: null } }),
    toolCalls({
      name: 'final_answer',
      arguments: {
        answer: 'It reached orbit.',
        tools_used: ['web_search'],
        sources: ['https://news.example.org/launch', 'https://invented.example/'],
      },
    }),
  );
  const cwd = mkdtempSync(join(tmpdir(), 'chat-search-'));
  const result = await runScript('src/chat.ts', {
    cwd,
    stdin: 'what happened at the launch?\n',
    env: { OPENAI_BASE_URL: model.baseURL, USER: 'ada', SEARXNG_URL: provider.url },
  });
  expect(result.stderr).toBe('');
  expect(result.stdout).toContain(
    [
      'bot: It reached orbit.',
      '     (tools: web_search)',
      '     sources:',
      '     1. https://news.example.org/launch',
      '',
    ].join('\n'),
  );
  expect(result.stdout).not.toContain('invented.example');
  expect(provider.requests).toHaveLength(1);
});
