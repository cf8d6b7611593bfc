/**
 * The web_search tool against fake SearXNG, Brave and Tavily servers on 127.0.0.1 (each written
 * from the provider's API reference): the request each provider documents, results cut to the count
 * asked, the sources it notes, and each provider's failures as an observation the model can act on
 * and a line the operator can act on, the key in neither.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import { searchProfile } from '../../src/web/search/providers/index.ts';
import type { WebSearchConfig } from '../../src/web/search/providers/index.ts';
import { searchTheWeb } from '../../src/web/search/web-search-client.ts';
import { webSearch } from '../../tools/web-search.ts';
import { braveError, startFakeBrave } from '../support/fake-search/brave.ts';
import type { FakePage, FakeSearch } from '../support/fake-search/server.ts';
import { startFakeSearxng } from '../support/fake-search/searxng.ts';
import { startFakeTavily, tavilyError } from '../support/fake-search/tavily.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const braveKey = 'BSA-test-key-0123456789abcdef';
const tavilyKey = 'tvly-test-key-0123456789abcdef';

const pages: FakePage[] = Array.from({ length: 12 }, (_, index) => ({
  title: `Launch report ${index + 1}`,
  url: `https://news.example.org/launch-${index + 1}`,
  snippet: `What happened at the launch, part ${index + 1}.`,
  ...(index === 0 ? { date: '2026-11-26T09:00:00' } : {}),
}));

let fake: FakeSearch | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** Runs the tool once as the loop would; resolves to its text, or rejects with what it threw. */
async function search(config: WebSearchConfig, args: Record<string, unknown>) {
  const recording = recordingLogger();
  const noted: string[] = [];
  const tool = fromZodTool(webSearch(config));
  const validated = tool.validate({ count: null, freshness: null, ...args });
  if (!validated.ok) throw new Error(validated.issues.join('; '));
  const context = {
    conversationId: 'c',
    guildId: null,
    channelId: null,
    requester: { id: 'u', displayName: 'Ada', isModerator: false },
    logger: recording.logger,
    signal: new AbortController().signal,
    noteSource: (url: string) => void noted.push(url),
  };
  const outcome = await tool.execute(validated.value, context).then(
    (text) => ({ ok: true as const, text: text as string }),
    (error: unknown) => ({ ok: false as const, error: error as Error & { userMessage: string; code: string } }),
  );
  return { outcome, noted, lines: recording.lines };
}

const searxng = async (options = { jsonEnabled: true }) => {
  fake = await startFakeSearxng(pages, options);
  return { provider: 'searxng', endpoint: fake.url, apiKey: null } satisfies WebSearchConfig;
};
const brave = async (key = braveKey) => {
  fake = await startFakeBrave(braveKey, pages);
  return { provider: 'brave', endpoint: fake.url, apiKey: key } satisfies WebSearchConfig;
};
const tavily = async (key = tavilyKey) => {
  fake = await startFakeTavily(tavilyKey, pages);
  return { provider: 'tavily', endpoint: fake.url, apiKey: key } satisfies WebSearchConfig;
};

describe('web_search results', () => {
  it.each([
    ['SearXNG', searxng],
    ['Brave', () => brave()],
    ['Tavily', () => tavily()],
  ])(
    '%s: one request, at most count results with title, URL, snippet and date, each URL noted as a source',
    async (_name, start) => {
      const config = await start();
      const { outcome, noted } = await search(config, { query: 'launch yesterday', count: 3 });
      expect(fake!.requests).toHaveLength(1);
      if (!outcome.ok) throw outcome.error;
      expect(outcome.text).toContain('3 results');
      expect(outcome.text).toContain(
        '1. Launch report 1\n   URL: https://news.example.org/launch-1\n   Date: 2026-11-26T09:00:00',
      );
      expect(outcome.text).toContain('What happened at the launch, part 3.');
      expect(outcome.text).not.toContain('launch-4');
      expect(noted).toEqual(pages.slice(0, 3).map((page) => page.url));
    },
  );

  it('defaults to 5 results, and refuses a count past 10', async () => {
    const config = await searxng();
    const { outcome, noted } = await search(config, { query: 'launch' });
    expect(outcome.ok && outcome.text).toContain('5 results');
    expect(noted).toHaveLength(5);
    await expect(search(config, { query: 'launch', count: 11 })).rejects.toThrow('count');
  });

  it('asks each provider as its reference says, the freshness in its own words', async () => {
    let config: WebSearchConfig = await searxng();
    await search(config, { query: 'launch', freshness: 'week' });
    expect(Object.fromEntries(fake!.requests[0]!.query)).toMatchObject({
      q: 'launch',
      format: 'json',
      time_range: 'week',
    });
    await fake!.close();

    config = await brave();
    await search(config, { query: 'launch', count: 4, freshness: 'day' });
    const braveRequest = fake!.requests[0]!;
    expect(braveRequest.method).toBe('GET');
    expect(Object.fromEntries(braveRequest.query)).toMatchObject({ q: 'launch', count: '4', freshness: 'pd' });
    expect(braveRequest.headers['x-subscription-token']).toBe(braveKey);
    await fake!.close();

    config = await tavily();
    await search(config, { query: 'launch', count: 2, freshness: 'month' });
    const tavilyRequest = fake!.requests[0]!;
    expect(tavilyRequest.method).toBe('POST');
    expect(tavilyRequest.headers.authorization).toBe(`Bearer ${tavilyKey}`);
    expect(JSON.parse(tavilyRequest.body)).toMatchObject({ query: 'launch', max_results: 2, time_range: 'month' });
    // The key goes in the header, not in the body too.
    expect(tavilyRequest.body).not.toContain(tavilyKey);
  });
});

describe('web_search failures: an observation for the model, a line for the operator, no key in either', () => {
  /** The failure's observation and log line, checked for the key. */
  async function failure(config: WebSearchConfig) {
    const { outcome, noted, lines } = await search(config, { query: 'launch' });
    if (outcome.ok) throw new Error(`expected a failure, got ${outcome.text}`);
    const line = lines.find((entry) => entry.level === 'warn');
    // One message for every failure (web search failed), the provider's words in `reason`.
    expect(line?.msg).toBe('web search failed');
    const reason = typeof line?.fields.reason === 'string' ? line.fields.reason : '(no reason)';
    const texts = [outcome.error.userMessage, JSON.stringify(line?.fields ?? {})];
    for (const key of [braveKey, tavilyKey]) for (const text of texts) expect(text).not.toContain(key);
    expect(noted).toEqual([]);
    return { code: outcome.error.code, observation: outcome.error.userMessage, log: reason };
  }

  it('SearXNG without the JSON format enabled (403)', async () => {
    const result = await failure(await searxng({ jsonEnabled: false }));
    expect(result.code).toBe('search-format-disabled');
    expect(result.observation).toMatch(/does not allow the JSON format \(HTTP 403\).*Do not search again/);
    expect(result.log).toContain('search.formats');
  });

  it('Brave: a bad key (422 SUBSCRIPTION_TOKEN_INVALID), the quota (429 QUOTA_LIMITED), the rate limit (429 with X-RateLimit-Reset)', async () => {
    let result = await failure(await brave('BSA-wrong-key-0000000000'));
    expect(result).toMatchObject({ code: 'search-bad-key' });
    expect(result.observation).toContain("Brave Search refused the bot's API key (HTTP 422)");
    expect(result.log).toContain('Check BRAVE_API_KEY');
    await fake!.close();

    const config = await brave();
    fake!.failNext(braveError(429, 'QUOTA_LIMITED', 'The monthly quota of your plan has been used up.'));
    result = await failure(config);
    expect(result.code).toBe('search-quota');
    expect(result.observation).toContain("the Brave Search plan's quota is used up (HTTP 429)");

    fake!.failNext({
      ...braveError(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.'),
      headers: {
        'x-ratelimit-limit': '1, 15000',
        'x-ratelimit-remaining': '0, 14000',
        'x-ratelimit-reset': '1, 1419704',
      },
    });
    result = await failure(config);
    expect(result.code).toBe('search-rate-limited');
    expect(result.observation).toContain('it asks to wait 1 s');
    expect(result.log).toContain('Request rate limit exceeded for plan.');
  });

  it('Tavily: a bad key (401), the credits (432), the pay-as-you-go limit (433), the rate limit (429 with Retry-After)', async () => {
    let result = await failure(await tavily('tvly-wrong-000000000000'));
    expect(result.code).toBe('search-bad-key');
    expect(result.log).toContain('Unauthorized: missing or invalid API key.');
    await fake!.close();

    const config = await tavily();
    for (const status of [432, 433]) {
      fake!.failNext(tavilyError(status, "This request exceeds your plan's set usage limit."));
      result = await failure(config);
      expect(result.code).toBe('search-quota');
      expect(result.observation).toContain(`(HTTP ${status})`);
    }
    fake!.failNext({ ...tavilyError(429, 'Too many requests.'), headers: { 'retry-after': '7' } });
    result = await failure(config);
    expect(result.code).toBe('search-rate-limited');
    expect(result.observation).toContain('it asks to wait 7 s');
  });

  it('a provider that echoes the key in its error has it masked', async () => {
    const config = await tavily();
    fake!.failNext(tavilyError(400, `Invalid request from key ${tavilyKey}`));
    const result = await failure(config);
    expect(result.code).toBe('search-bad-request');
    expect(result.log).toContain('[redacted]');
  });

  it('a provider that does not answer in time, and one not there at all', async () => {
    const config = await searxng();
    fake!.failNext({ hang: true });
    // The tool's own limit is 15 s: the client's is checked with a short one.
    const settings = { profile: searchProfile('searxng'), endpoint: config.endpoint, apiKey: null, timeoutMs: 200 };
    await expect(searchTheWeb(settings, { query: 'x', count: 5, freshness: null })).rejects.toMatchObject({
      code: 'search-timeout',
      userMessage: expect.stringContaining('did not answer within'),
    });
    await fake!.close();
    const result = await failure(config);
    expect(result.code).toBe('search-unreachable');
    expect(result.log).toContain(`could not reach SearXNG at ${config.endpoint}`);
  });
});
