import { field, listedResults, type SearchProviderProfile, textOf } from './provider-profile.ts';

/**
 * Tavily: `POST /search` with a JSON body and the key as `Authorization: Bearer`; `max_results`
 * up to 20, `time_range` day/week/month/year; results under `results` with `content` and, for
 * news, `published_date`. Errors come as `{detail: {error}}`: 401 a bad or missing key, 429 the
 * rate limit, 432 the plan's credits used up, 433 the pay-as-you-go limit reached.
 */
export const tavily: SearchProviderProfile<'tavily'> = {
  id: 'tavily',
  name: 'Tavily',
  urlSetting: 'TAVILY_URL',
  defaultUrl: 'https://api.tavily.com/search',
  keySetting: 'TAVILY_API_KEY',
  request(endpoint, apiKey, query) {
    const body = {
      query: query.query,
      max_results: query.count,
      search_depth: 'basic',
      include_answer: false,
      ...(query.freshness ? { time_range: query.freshness } : {}),
    };
    return {
      url: endpoint,
      init: {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify(body),
      },
    };
  },
  read(body, query) {
    const results = field(body, 'results');
    if (!Array.isArray(results)) return null;
    return listedResults(results, query, { snippet: 'content', date: ['published_date'] });
  },
  classify: (status) => (status === 432 || status === 433 ? 'search-quota' : null),
  explain: (body) => textOf(field(field(body, 'detail'), 'error')) ?? textOf(field(body, 'detail')),
  sources: [
    'https://docs.tavily.com/documentation/api-reference/endpoint/search (body, Bearer key, results, status codes 400/401/429/432/433/500)',
    'https://docs.tavily.com/documentation/rate-limits',
  ],
};
