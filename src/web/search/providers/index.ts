/**
 * The web search providers, and the one list of them: WEB_SEARCH's values are read from it. A new
 * provider: one profile file here, one line in this list, its settings (search-settings.ts), its
 * fake (test/support/fake-search/) and its docs (README's settings table, .env.example,
 * docs/web-search.md).
 */
import { brave } from './brave.ts';
import type { SearchProviderProfile } from './provider-profile.ts';
import { searxng } from './searxng.ts';
import { tavily } from './tavily.ts';

/** In the order WEB_SEARCH=auto looks for one configured. */
export const searchProviders = [searxng, brave, tavily] as const;

/** A WEB_SEARCH value other than auto and off: a profile's id. */
export type SearchProviderId = (typeof searchProviders)[number]['id'];

export const searchProviderIds = searchProviders.map((profile) => profile.id);

/** The provider the `web_search` tool uses (from WEB_SEARCH): where it is, and its key (null for SearXNG). */
export interface WebSearchConfig {
  provider: SearchProviderId;
  endpoint: string;
  apiKey: string | null;
}

export function searchProfile(id: SearchProviderId): SearchProviderProfile {
  return searchProviders.find((profile) => profile.id === id)!;
}
