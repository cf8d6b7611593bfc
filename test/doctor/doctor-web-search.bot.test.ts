/**
 * `npm run doctor`'s web search check, the real script in a process of its own: after the model
 * server's report, one search against the configured provider (fakes on 127.0.0.1), and a line
 * that says it works, or what the provider refused and what to fix, the key never shown. The model
 * server here is unreachable: its report is quick, and the web search is checked all the same.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeBrave } from '../support/fake-search/brave.ts';
import { startFakeSearxng } from '../support/fake-search/searxng.ts';
import type { FakeSearch } from '../support/fake-search/server.ts';
import { runScript } from '../support/run-process.ts';

let provider: FakeSearch | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function doctor(env: Record<string, string>) {
  const cwd = mkdtempSync(join(tmpdir(), 'doctor-search-'));
  // Port 9 (discard) on loopback: nothing listens, so the model check ends at once.
  return runScript('src/doctor.ts', {
    cwd,
    env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', DATABASE_PATH: join(cwd, 'bot.sqlite'), ...env },
  });
}

describe('npm run doctor checks the web search provider', () => {
  it('a working SearXNG: one search, and ok', { timeout: 60_000 }, async () => {
    provider = await startFakeSearxng([{ title: 'A', url: 'https://a.test/', snippet: 'a' }]);
    const run = await doctor({ SEARXNG_URL: provider.url });
    expect(run.stdout).toContain(`Web search: SearXNG at ${provider.url}: ok, a test search found 1 result.`);
    expect(provider.requests).toHaveLength(1);
  });

  it('Brave refusing the key: what it said and what to fix, without the key', { timeout: 60_000 }, async () => {
    const key = 'BSA-doctor-wrong-key-0123456789';
    provider = await startFakeBrave('BSA-the-right-one-000000000', []);
    const run = await doctor({ BRAVE_API_KEY: key, BRAVE_SEARCH_URL: provider.url });
    expect(run.stdout).toContain(
      `Web search: Brave Search at ${provider.url}: FAIL web search: Brave Search answered HTTP 422 (search-bad-key): The provided subscription token is invalid. Check BRAVE_API_KEY.`,
    );
    expect(run.stdout + run.stderr).not.toContain(key);
  });

  it('none configured: says so, and how to add one', { timeout: 60_000 }, async () => {
    const run = await doctor({});
    expect(run.stdout).toContain(
      'Web search: off (none configured): set SEARXNG_URL, BRAVE_API_KEY or TAVILY_API_KEY to offer web_search.',
    );
  });
});
