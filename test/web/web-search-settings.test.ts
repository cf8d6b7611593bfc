/** WEB_SEARCH and its providers' settings, read as the bot reads them (parseConfig). */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/settings/config.ts';

const base = { OPENAI_API_KEY: 'sk-1' };
const webSearch = (environment: Record<string, string>) => {
  const result = parseConfig({ ...base, ...environment }, null);
  return result.ok ? result.config.webSearch : result.problems;
};

describe('web search settings', () => {
  it('auto: none configured is no web search; one configured is that one; several, SearXNG then Brave then Tavily', () => {
    expect(webSearch({})).toBeNull();
    expect(webSearch({ TAVILY_API_KEY: 'tvly-1234567890' })).toEqual({
      provider: 'tavily',
      endpoint: 'https://api.tavily.com/search',
      apiKey: 'tvly-1234567890',
    });
    expect(webSearch({ BRAVE_API_KEY: 'BSA1234567890', TAVILY_API_KEY: 'tvly-1234567890' })).toEqual({
      provider: 'brave',
      endpoint: 'https://api.search.brave.com/res/v1/web/search',
      apiKey: 'BSA1234567890',
    });
    expect(webSearch({ SEARXNG_URL: 'http://127.0.0.1:8888', BRAVE_API_KEY: 'BSA1234567890' })).toEqual({
      provider: 'searxng',
      endpoint: 'http://127.0.0.1:8888',
      apiKey: null,
    });
  });

  it('a provider named explicitly is used, and off is off whatever is configured', () => {
    expect(
      webSearch({ WEB_SEARCH: 'tavily', SEARXNG_URL: 'http://127.0.0.1:8888', TAVILY_API_KEY: 'tvly-1234567890' }),
    ).toMatchObject({ provider: 'tavily' });
    expect(webSearch({ WEB_SEARCH: 'off', BRAVE_API_KEY: 'BSA1234567890' })).toBeNull();
    expect(
      webSearch({ BRAVE_API_KEY: 'BSA1234567890', BRAVE_SEARCH_URL: 'http://127.0.0.1:9/res/v1/web/search' }),
    ).toMatchObject({
      endpoint: 'http://127.0.0.1:9/res/v1/web/search',
    });
  });

  it('refuses a provider named without what it needs, and a bad URL, by name', () => {
    expect(webSearch({ WEB_SEARCH: 'brave' })).toEqual([
      'WEB_SEARCH=brave needs BRAVE_API_KEY: set it, or set WEB_SEARCH=auto (or off)',
    ]);
    expect(webSearch({ WEB_SEARCH: 'searxng' })).toEqual([
      expect.stringMatching(/^WEB_SEARCH=searxng needs SEARXNG_URL/),
    ]);
    expect(webSearch({ WEB_SEARCH: 'google' })).toEqual([
      'WEB_SEARCH must be auto, off, searxng, brave or tavily (it is "google")',
    ]);
    expect(webSearch({ SEARXNG_URL: 'ftp://example.org' })).toEqual([
      'SEARXNG_URL must be an http:// or https:// URL (it is "ftp://example.org")',
    ]);
  });

  it('holds the keys as secrets for the logger to mask', () => {
    const result = parseConfig({ ...base, BRAVE_API_KEY: 'BSA1234567890', TAVILY_API_KEY: 'tvly-1234567890' }, null);
    expect(result.ok && result.config.secrets).toEqual(expect.arrayContaining(['BSA1234567890', 'tvly-1234567890']));
  });
});
