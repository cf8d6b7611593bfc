/**
 * The web search settings (WEB_SEARCH and each provider's URL and key), read with the others by
 * config.ts: which provider the `web_search` tool uses, or none. Keys are secrets: config-from-settings.ts adds
 * them to the values the logger masks.
 */
import { z } from 'zod';
import type { WebSearchConfig } from '../web/search/providers/index.ts';
import {
  searchProfile,
  type SearchProviderId,
  searchProviderIds,
  searchProviders,
} from '../web/search/providers/index.ts';
import {
  blankToUndefined,
  credentialsProblem,
  type Environment,
  httpUrl,
  oneOf,
  optionalText,
  withoutCredentials,
} from './setting-fields.ts';

const optionalHttpUrl = () =>
  z.preprocess(
    blankToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .refine(withoutCredentials, credentialsProblem)
      .optional(),
  );

/** The settings' fields, spread into the schema of settings-schema.ts. */
export const webSearchFields = {
  WEB_SEARCH: oneOf(['auto', 'off', ...searchProviderIds], 'auto'),
  SEARXNG_URL: optionalHttpUrl(),
  BRAVE_API_KEY: optionalText(),
  BRAVE_SEARCH_URL: httpUrl(searchProfile('brave').defaultUrl!),
  TAVILY_API_KEY: optionalText(),
  TAVILY_URL: httpUrl(searchProfile('tavily').defaultUrl!),
};

type Values = z.output<z.ZodObject<typeof webSearchFields>>;

/** What names a provider as configured: its key, or SearXNG's URL. */
const configuredBy: Record<SearchProviderId, 'SEARXNG_URL' | 'BRAVE_API_KEY' | 'TAVILY_API_KEY'> = {
  searxng: 'SEARXNG_URL',
  brave: 'BRAVE_API_KEY',
  tavily: 'TAVILY_API_KEY',
};

/** A provider named by WEB_SEARCH without what it needs, checked on the raw values with every other problem. */
export function webSearchProblems(merged: Environment): string[] {
  const chosen = merged.WEB_SEARCH?.trim();
  const profile = searchProviders.find((candidate) => candidate.id === chosen);
  if (!profile) return [];
  const needed = configuredBy[profile.id];
  return blankToUndefined(merged[needed]) === undefined
    ? [`WEB_SEARCH=${profile.id} needs ${needed}: set it, or set WEB_SEARCH=auto (or off)`]
    : [];
}

/** The provider WEB_SEARCH names, or (auto) the first configured of SearXNG, Brave, Tavily; null: no web search. */
export function webSearchFrom(values: Values): WebSearchConfig | null {
  if (values.WEB_SEARCH === 'off') return null;
  const id =
    values.WEB_SEARCH === 'auto'
      ? searchProviderIds.find((candidate) => values[configuredBy[candidate]] !== undefined)
      : values.WEB_SEARCH;
  if (id === undefined) return null;
  const endpoints: Record<SearchProviderId, string | undefined> = {
    searxng: values.SEARXNG_URL,
    brave: values.BRAVE_SEARCH_URL,
    tavily: values.TAVILY_URL,
  };
  const keys: Record<SearchProviderId, string | undefined> = {
    searxng: undefined,
    brave: values.BRAVE_API_KEY,
    tavily: values.TAVILY_API_KEY,
  };
  return { provider: id, endpoint: endpoints[id]!, apiKey: keys[id] ?? null };
}

/** The settings that hold a key: never echoed in a problem, masked in every log line. */
export const webSearchKeyNames: ReadonlySet<string> = new Set(['BRAVE_API_KEY', 'TAVILY_API_KEY']);

/** The keys set, for the logger to mask (whether or not their provider is the one used). */
export function webSearchKeys(values: Values): (string | undefined)[] {
  return [values.BRAVE_API_KEY, values.TAVILY_API_KEY];
}
