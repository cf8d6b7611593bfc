/**
 * `npm run doctor`'s check of the web search provider (WEB_SEARCH and its settings, read as the bot
 * reads them): one real search, and what came of it in a line, after the model server's report. A
 * failing provider does not change the doctor's exit code: the bot works without web search.
 */
import { describeIssue, type Environment } from '../settings/config.ts';
import { settingsSchema } from '../settings/settings-schema.ts';
import { webSearchFields, webSearchFrom, webSearchProblems } from '../settings/web-search-settings.ts';
import { errorMessage } from '../agent/errors.ts';
import { searchProfile } from '../web/search/providers/index.ts';
import { SearchError } from '../web/search/search-error.ts';
import { searchTheWeb } from '../web/search/web-search-client.ts';

const schema = settingsSchema.pick(
  Object.fromEntries(Object.keys(webSearchFields).map((name) => [name, true])) as {
    [Name in keyof typeof webSearchFields]: true;
  },
);

/** The lines the doctor prints of web search: off and how to turn it on, or the provider and its answer to one search. */
export async function checkWebSearch(merged: Environment): Promise<string[]> {
  const parsed = schema.safeParse(merged);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => describeIssue(issue, merged))),
    ...webSearchProblems(merged),
  ];
  if (!parsed.success || problems.length > 0)
    return ['Web search: the settings have problems:', ...problems.map((problem) => `  - ${problem}`)];
  const config = webSearchFrom(parsed.data);
  if (!config)
    return [
      `Web search: off (${parsed.data.WEB_SEARCH === 'off' ? 'WEB_SEARCH=off' : 'none configured'}): set SEARXNG_URL, BRAVE_API_KEY or TAVILY_API_KEY to offer web_search.`,
    ];
  const profile = searchProfile(config.provider);
  const head = `Web search: ${profile.name} at ${config.endpoint}`;
  try {
    const outcome = await searchTheWeb(
      { profile, endpoint: config.endpoint, apiKey: config.apiKey, timeoutMs: 15_000 },
      { query: 'discord bot', count: 3, freshness: null },
    );
    const found = outcome.results.length;
    return [`${head}: ok, a test search found ${found} result${found === 1 ? '' : 's'}.`];
  } catch (error) {
    // The detail is the operator's line: what the provider said (the key masked) and what to do.
    return [`${head}: FAIL ${error instanceof SearchError ? error.message : errorMessage(error)}`];
  }
}
