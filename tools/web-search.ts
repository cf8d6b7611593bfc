import { z } from 'zod';
import { truncateLine } from '../src/text/truncate.ts';
import { searchProfile, type WebSearchConfig } from '../src/web/search/providers/index.ts';
import {
  freshnessValues,
  maxResultCount,
  type SearchOutcome,
  webSearchToolName,
} from '../src/web/search/search-types.ts';
import { searchTheWeb } from '../src/web/search/web-search-client.ts';
import { defineTool } from './define-tool.ts';

/** A provider's answer within this; a search past the tool's own limit ends as a timeout of the tool. */
const searchTimeoutMs = 15_000;
const defaultCount = 5;

/** The web_search tool, searching with the provider the settings chose. */
export function webSearch(config: WebSearchConfig) {
  const settings = {
    profile: searchProfile(config.provider),
    endpoint: config.endpoint,
    apiKey: config.apiKey,
    timeoutMs: searchTimeoutMs,
  };
  return defineTool({
    name: webSearchToolName,
    description:
      `Search the web (${settings.profile.name}): the title, URL, snippet and date (when known) of each page found. ` +
      'Use it for recent events and facts you are unsure of; read a page with fetch_url before relying on more than its snippet, ' +
      "and list the URLs your answer relies on in final_answer's sources.",
    parameters: z.object({
      query: z.string().trim().min(1).max(400).describe('What to search for, as you would type it in a search engine.'),
      count: z
        .number()
        .int()
        .min(1)
        .max(maxResultCount)
        .nullable()
        .describe(`How many results at most (default ${defaultCount}, at most ${maxResultCount}).`),
      freshness: z
        .enum(freshnessValues)
        .nullable()
        .describe('Only pages from the past day, week, month or year; null for any date.'),
    }),
    async execute({ query, count, freshness }, context) {
      const outcome = await searchTheWeb(
        settings,
        { query, count: count ?? defaultCount, freshness },
        { signal: context.signal, logger: context.logger },
      );
      for (const result of outcome.results) context.noteSource?.(result.url);
      return formatResults(query, settings.profile.name, outcome);
    },
  });
}

/** The results as the model reads them: numbered, one field a line, each cut to a line's length. */
function formatResults(query: string, provider: string, outcome: SearchOutcome): string {
  const found = outcome.results.length;
  const head = `${found === 0 ? 'No results' : `${found} result${found === 1 ? '' : 's'}`} from ${provider} for "${truncateLine(query, 200)}".`;
  const results = outcome.results.map((result, index) =>
    [
      `${index + 1}. ${truncateLine(result.title, 200)}`,
      `   URL: ${result.url}`,
      ...(result.date ? [`   Date: ${truncateLine(result.date, 40)}`] : []),
      ...(result.snippet ? [`   ${truncateLine(result.snippet.replace(/<[^>]*>/g, ''), 400)}`] : []),
    ].join('\n'),
  );
  return [head, ...(outcome.note ? [outcome.note] : []), ...results].join('\n\n');
}
