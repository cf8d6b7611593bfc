/**
 * Brave Search's web search API, from
 * https://api-dashboard.search.brave.com/app/documentation/web-search/query and its responses and
 * rate-limiting pages: `GET /res/v1/web/search?q=…&count=…` with `X-Subscription-Token`; the
 * answer `{type: "search", query: {original}, web: {type: "search", results: [{title, url,
 * description, age, page_age}]}}`; errors `{type: "ErrorResponse", error: {id, status, code,
 * detail}}`: an unknown token is 422 SUBSCRIPTION_TOKEN_INVALID, the rate limit 429 RATE_LIMITED
 * with `X-RateLimit-Reset`, the month's quota 429 QUOTA_LIMITED.
 */
import { type Dialect, type Failure, type FakePage, type FakeSearch, startFakeSearch } from './server.ts';

/** A Brave error body. */
export function braveError(status: number, code: string, detail: string): Failure & { status: number } {
  return {
    status,
    body: {
      type: 'ErrorResponse',
      error: { id: 'c3a5b1e0-0000-4000-8000-000000000000', status, code, detail, meta: {} },
    },
  };
}

function braveDialect(key: string): Dialect {
  return {
    path: '/res/v1/web/search',
    settingPath: '/res/v1/web/search',
    read: (request) => {
      const query = request.query.get('q');
      const count = Number(request.query.get('count') ?? '20');
      return request.method === 'GET' && query ? { query, count } : null;
    },
    refuse: (request) =>
      request.headers['x-subscription-token'] === key
        ? null
        : braveError(422, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.'),
    results: (query, pages) => ({
      type: 'search',
      query: { original: query, more_results_available: false },
      web: {
        type: 'search',
        family_friendly: true,
        results: pages.map((page) => ({
          type: 'search_result',
          title: page.title,
          url: page.url,
          description: page.snippet,
          is_source_local: false,
          language: 'en',
          ...(page.date ? { page_age: page.date, age: page.date } : {}),
        })),
      },
    }),
  };
}

/** Brave Search, answering the key `key` only. */
export function startFakeBrave(key: string, pages: FakePage[] = []): Promise<FakeSearch> {
  return startFakeSearch(braveDialect(key), pages);
}
