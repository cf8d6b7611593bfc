/**
 * What a web search asks and gives, whatever the provider: the `web_search` tool speaks this, and
 * each provider's profile (providers/) turns it into its own request and back.
 */
export const webSearchToolName = 'web_search';

/** What `/help` says when the bot has no web search, for people to pass on to the operator. */
export const noWebSearchHint =
  'I cannot search the web here: the operator can add it by setting SEARXNG_URL (a SearXNG instance), BRAVE_API_KEY or TAVILY_API_KEY (README, "Web search").';

/** How recent the results must be; each provider maps it to its own filter. */
export type Freshness = 'day' | 'week' | 'month' | 'year';

export const freshnessValues = ['day', 'week', 'month', 'year'] as const satisfies readonly Freshness[];

/** One search as the model asked for it, bounds already applied. */
export interface SearchQuery {
  query: string;
  /** Results wanted, 1 to `maxResultCount`. */
  count: number;
  freshness: Freshness | null;
}

/** One result, as shown to the model; `date` only when the provider gave one. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  date: string | null;
}

/** A search done: its results (at most `count`), and a note when the provider could not honour part of it. */
export interface SearchOutcome {
  results: SearchResult[];
  note: string | null;
}

/** The most results one search returns (Brave and Tavily stop at 20): ten keep the observation short. */
export const maxResultCount = 10;
