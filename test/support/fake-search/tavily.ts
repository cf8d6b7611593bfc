/**
 * Tavily's search API, from https://docs.tavily.com/documentation/api-reference/endpoint/search:
 * `POST /search` with a JSON body (`query`, `max_results`, `time_range`, …) and
 * `Authorization: Bearer tvly-…`; the answer `{query, answer, images, results: [{title, url,
 * content, score, published_date?}], response_time}`; errors `{detail: {error}}`: 401 a missing or
 * bad key, 429 too many requests, 432 the plan's credits used up, 433 the pay-as-you-go limit.
 */
import { type Dialect, type Failure, type FakePage, type FakeSearch, startFakeSearch } from './server.ts';

/** A Tavily error body. */
export function tavilyError(status: number, error: string): Failure & { status: number } {
  return { status, body: { detail: { error } } };
}

function bodyOf(text: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function tavilyDialect(key: string): Dialect {
  return {
    path: '/search',
    settingPath: '/search',
    read: (request) => {
      const body = bodyOf(request.body);
      if (request.method !== 'POST' || typeof body?.query !== 'string') return null;
      return { query: body.query, count: typeof body.max_results === 'number' ? body.max_results : 5 };
    },
    refuse: (request) =>
      request.headers.authorization === `Bearer ${key}`
        ? null
        : tavilyError(401, 'Unauthorized: missing or invalid API key.'),
    results: (query, pages) => ({
      query,
      answer: null,
      images: [],
      results: pages.map((page) => ({
        title: page.title,
        url: page.url,
        content: page.snippet,
        score: 0.9,
        raw_content: null,
        ...(page.date ? { published_date: page.date } : {}),
      })),
      response_time: 0.42,
    }),
  };
}

/** Tavily, answering the key `key` only. */
export function startFakeTavily(key: string, pages: FakePage[] = []): Promise<FakeSearch> {
  return startFakeSearch(tavilyDialect(key), pages);
}
