import type { Freshness } from '../search-types.ts';
import { field, listedResults, type SearchProviderProfile, textOf } from './provider-profile.ts';

const freshness: Record<Freshness, string> = { day: 'pd', week: 'pw', month: 'pm', year: 'py' };

/**
 * Brave Search's web search: `GET /res/v1/web/search` with the key in `X-Subscription-Token`;
 * `count` up to 20, `freshness` pd/pw/pm/py, results under `web.results` with `description` and
 * `page_age` or `age`. Errors come as `{type: "ErrorResponse", error: {code, detail, status}}`: a
 * bad key is 401 or 422 `SUBSCRIPTION_TOKEN_INVALID`, a plan's monthly quota used up is 429
 * `QUOTA_LIMITED` (or 402), a per-second limit 429 `RATE_LIMITED` with `X-RateLimit-Reset`.
 */
export const brave: SearchProviderProfile<'brave'> = {
  id: 'brave',
  name: 'Brave Search',
  urlSetting: 'BRAVE_SEARCH_URL',
  defaultUrl: 'https://api.search.brave.com/res/v1/web/search',
  keySetting: 'BRAVE_API_KEY',
  request(endpoint, apiKey, query) {
    const url = new URL(endpoint);
    url.searchParams.set('q', query.query);
    url.searchParams.set('count', String(query.count));
    // Plain text snippets: by default Brave wraps the words found in <strong>.
    url.searchParams.set('text_decorations', 'false');
    if (query.freshness) url.searchParams.set('freshness', freshness[query.freshness]);
    return {
      url: url.href,
      init: { method: 'GET', headers: { accept: 'application/json', 'x-subscription-token': apiKey ?? '' } },
    };
  },
  read(body, query) {
    if (field(body, 'type') !== 'search') return null;
    const results = field(field(body, 'web'), 'results') ?? [];
    if (!Array.isArray(results)) return null;
    return listedResults(results, query, { snippet: 'description', date: ['page_age', 'age'] });
  },
  classify(status, body) {
    const code = textOf(field(field(body, 'error'), 'code'));
    if (code === 'SUBSCRIPTION_TOKEN_INVALID') return 'search-bad-key';
    if (code === 'QUOTA_LIMITED' || status === 402) return 'search-quota';
    return null;
  },
  explain: (body) => textOf(field(field(body, 'error'), 'detail')),
  sources: [
    'https://api-dashboard.search.brave.com/app/documentation/web-search/query (q, count ≤ 20, freshness, text_decorations, X-Subscription-Token)',
    'https://api-dashboard.search.brave.com/app/documentation/web-search/responses (web.results: title, url, description, age, page_age)',
    'https://api-dashboard.search.brave.com/app/documentation/rate-limiting (429, X-RateLimit-Limit/Remaining/Reset)',
  ],
};
