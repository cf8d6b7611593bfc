/**
 * SearXNG's search API, from https://docs.searxng.org/dev/search_api: `GET /search?q=…&format=json`,
 * about 20 results whatever is asked (no count), `time_range`; a format not enabled in settings.yml
 * answers 403 Forbidden (an HTML page). The JSON has `query`, `number_of_results` and `results`
 * with `url`, `title`, `content`, `engine` and `publishedDate` (null when unknown).
 */
import { type Dialect, type FakePage, type FakeSearch, startFakeSearch } from './server.ts';

function searxngDialect(options: { jsonEnabled: boolean }): Dialect {
  return {
    path: '/search',
    settingPath: '',
    read: (request) => {
      const query = request.query.get('q');
      return request.method === 'GET' && query ? { query, count: null } : null;
    },
    refuse: (request) =>
      request.query.get('format') === 'json' && options.jsonEnabled
        ? null
        : { status: 403, body: '<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>' },
    results: (query, pages) => ({
      query,
      number_of_results: 0,
      results: pages.map((page) => ({
        url: page.url,
        title: page.title,
        content: page.snippet,
        engine: 'duckduckgo',
        engines: ['duckduckgo'],
        score: 1,
        category: 'general',
        publishedDate: page.date ?? null,
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    }),
  };
}

/** A SearXNG instance; `jsonEnabled: false` is one whose settings.yml lists only html. */
export function startFakeSearxng(pages: FakePage[] = [], options = { jsonEnabled: true }): Promise<FakeSearch> {
  return startFakeSearch(searxngDialect(options), pages);
}
