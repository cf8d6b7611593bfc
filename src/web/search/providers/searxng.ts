import { field, listedResults, type SearchProviderProfile, textOf } from './provider-profile.ts';

/**
 * SearXNG, self-hosted: `GET {SEARXNG_URL}/search?q=…&format=json`. It returns a page of results
 * (about 20) whatever is asked, so the list is cut here. An instance answers 403 to a format not
 * listed under `search.formats` in its settings.yml, and JSON is off by default on many instances.
 */
export const searxng: SearchProviderProfile<'searxng'> = {
  id: 'searxng',
  name: 'SearXNG',
  urlSetting: 'SEARXNG_URL',
  defaultUrl: null,
  keySetting: null,
  request(endpoint, _apiKey, query) {
    const url = new URL(`${endpoint.replace(/\/+$/, '')}/search`);
    url.searchParams.set('q', query.query);
    url.searchParams.set('format', 'json');
    url.searchParams.set('pageno', '1');
    if (query.freshness) url.searchParams.set('time_range', query.freshness);
    return { url: url.href, init: { method: 'GET', headers: { accept: 'application/json' } } };
  },
  read(body, query) {
    const results = field(body, 'results');
    if (!Array.isArray(results)) return null;
    return listedResults(results, query, { snippet: 'content', date: ['publishedDate'] });
  },
  classify: (status) => (status === 403 ? 'search-format-disabled' : null),
  explain: (body) => textOf(field(body, 'error')) ?? textOf(body),
  sources: [
    'https://docs.searxng.org/dev/search_api (GET /search, q, format, time_range, pageno; an unset format answers 403)',
    'https://github.com/searxng/searxng/tree/master/searx/engines (each engine maps time_range day, week, month, year: week too, though the API page lists day, month, year)',
    'https://docs.searxng.org/admin/settings/settings_search (search.formats: json must be listed)',
  ],
};
