import type { SearchErrorCode } from '../search-error.ts';
import type { SearchOutcome, SearchQuery, SearchResult } from '../search-types.ts';

/** A request to a provider, ready for `fetch`. */
interface ProviderRequest {
  url: string;
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
}

/**
 * A web search provider's profile: data and a few small functions, with their sources, the same
 * idea as the model servers' (src/model-servers/profiles/). The client (../web-search-client.ts)
 * does the fetching, the limits and the wording of failures; a profile only knows its API's shape.
 */
export interface SearchProviderProfile<Id extends string = string> {
  /** Its WEB_SEARCH value. */
  id: Id;
  /** As people name it. */
  name: string;
  /** The setting that says where it is, and where it is when that setting is unset (null: it must be set). */
  urlSetting: string;
  defaultUrl: string | null;
  /** The setting that holds its key; null when it takes none. */
  keySetting: string | null;
  request(endpoint: string, apiKey: string | null, query: SearchQuery): ProviderRequest;
  /** The results of a 200 answer's JSON body; null when the body is not what the API documents. */
  read(body: unknown, query: SearchQuery): SearchOutcome | null;
  /** A refusal this provider words its own way (a status or error code of its own); null: the usual meaning of the status. */
  classify?(status: number, body: unknown): SearchErrorCode | null;
  /** The provider's own explanation in an error body, when it gives one. */
  explain(body: unknown): string | null;
  /** Where each fact comes from. */
  sources: readonly string[];
}

/** The object at `key` of a JSON value, or undefined. */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** A JSON value as text, when it is a non-empty string. */
export function textOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * A provider's list of results in our terms, at most `query.count`: those without a URL dropped, a
 * missing title given the URL. `names` says which of its fields hold the snippet and the date (the
 * first that is set).
 */
export function listedResults(
  list: readonly unknown[],
  query: SearchQuery,
  names: { snippet: string; date: readonly string[] },
): SearchOutcome {
  const found = list.flatMap((result): SearchResult[] => {
    const url = textOf(field(result, 'url'));
    if (!url) return [];
    const date = names.date.map((name) => textOf(field(result, name))).find((text) => text !== null) ?? null;
    return [
      { title: textOf(field(result, 'title')) ?? url, url, snippet: textOf(field(result, names.snippet)) ?? '', date },
    ];
  });
  return { results: found.slice(0, query.count), note: null };
}
