/**
 * One web search against the configured provider: the request its profile builds, a time limit,
 * the body read within a cap, and every way it can fail turned into a `SearchError` whose
 * `userMessage` tells the model what happened (and whether to try again) and whose detail is the
 * operator's log line. The key goes in the request's header or body only: every provider text
 * quoted is masked first, so it never reaches the model, a log line or Discord.
 */
import type { Logger } from '../../agent/logger.ts';
import { readUpTo } from '../../streams/read-up-to.ts';
import { formatTimeLimit } from '../../text/duration.ts';
import { maskWith } from '../../text/mask-secrets.ts';
import { truncateLine } from '../../text/truncate.ts';
import type { SearchProviderProfile } from './providers/provider-profile.ts';
import { SearchError, type SearchErrorCode } from './search-error.ts';
import type { SearchOutcome, SearchQuery } from './search-types.ts';

/** The provider chosen by the settings, where it is, and its key. */
export interface WebSearchSettings {
  profile: SearchProviderProfile;
  endpoint: string;
  apiKey: string | null;
  timeoutMs: number;
}

/** A provider's answer is a page of results: more than this is not read. */
const maxBodyBytes = 2_000_000;

/** Searches the web. Throws a `SearchError` for every failure the model or the operator can act on. */
export async function searchTheWeb(
  settings: WebSearchSettings,
  query: SearchQuery,
  options: { signal?: AbortSignal; logger?: Logger } = {},
): Promise<SearchOutcome> {
  try {
    return await search(settings, query, options.signal);
  } catch (error) {
    if (error instanceof SearchError)
      options.logger?.warn(
        { provider: settings.profile.id, code: error.code, reason: error.message },
        'web search failed',
      );
    throw error;
  }
}

async function search(settings: WebSearchSettings, query: SearchQuery, signal?: AbortSignal): Promise<SearchOutcome> {
  const { profile } = settings;
  const request = profile.request(settings.endpoint, settings.apiKey, query);
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  let response: Response;
  let bytes: Buffer;
  try {
    // No redirect followed: the key would go along to wherever it leads.
    response = await fetch(request.url, {
      ...request.init,
      redirect: 'manual',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    bytes = response.body ? (await readUpTo(response.body, maxBodyBytes)).bytes : Buffer.alloc(0);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw unreachable(settings, error, timeout.aborted);
  }
  const body = parseJson(bytes);
  if (!response.ok) throw refusal(settings, response, body ?? bytes.toString('utf8'));
  const outcome = body === undefined ? null : profile.read(body, query);
  if (!outcome)
    throw new SearchError(
      'search-bad-response',
      `${profile.name} answered with something that is not a list of search results; try again later or answer without web search.`,
      {
        detail: `web search: ${profile.name} at ${settings.endpoint} answered HTTP ${response.status} with a body that is not its JSON search response${response.status >= 300 && response.status < 400 ? ' (a redirect: set the URL it redirects to)' : ''}`,
      },
    );
  return outcome;
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function unreachable(settings: WebSearchSettings, error: unknown, timedOut: boolean): SearchError {
  const { name } = settings.profile;
  if (timedOut)
    return new SearchError(
      'search-timeout',
      `${name} did not answer within ${formatTimeLimit(settings.timeoutMs)}; you may try once more, or answer without web search.`,
      {
        detail: `web search: ${name} at ${settings.endpoint} did not answer within ${formatTimeLimit(settings.timeoutMs)}`,
      },
    );
  const reason =
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new SearchError('search-unreachable', `Could not reach ${name}; answer without web search.`, {
    detail: `web search: could not reach ${name} at ${settings.endpoint} (${reason})`,
    cause: error,
  });
}

/** A refusal (any status but 2xx), as its code says, with the provider's own words masked and cut. */
function refusal(settings: WebSearchSettings, response: Response, body: unknown): SearchError {
  const { profile } = settings;
  const status = response.status;
  const code = profile.classify?.(status, body) ?? codeOfStatus(status);
  const mask = maskWith([settings.apiKey]);
  const said = profile.explain(body);
  const explained = said ? `: ${truncateLine(mask(said), 200).replace(/[.\s]+$/, '')}` : '';
  const wait = code === 'search-rate-limited' ? retryAfterSeconds(response.headers) : null;
  const message = observation(settings, code, status, wait);
  return new SearchError(code, message, {
    detail:
      `web search: ${profile.name} answered HTTP ${status} (${code})${explained}. ${operatorAdvice(settings, code)}`.trim(),
  });
}

function codeOfStatus(status: number): SearchErrorCode {
  if (status === 401 || status === 403) return 'search-bad-key';
  if (status === 402) return 'search-quota';
  if (status === 429) return 'search-rate-limited';
  if (status === 400 || status === 422) return 'search-bad-request';
  return 'search-provider-error';
}

/** What the model reads: what happened, and whether another search in this run can help. */
function observation(settings: WebSearchSettings, code: SearchErrorCode, status: number, wait: number | null): string {
  const { name, keySetting } = settings.profile;
  const without = 'Do not search again in this answer: answer without web search, and say so.';
  switch (code) {
    case 'search-bad-key':
      return `Web search is unavailable: ${name} refused the bot's API key (HTTP ${status}); the operator must fix ${keySetting ?? 'its access'}. ${without}`;
    case 'search-quota':
      return `Web search is unavailable: the ${name} plan's quota is used up (HTTP ${status}). ${without}`;
    case 'search-format-disabled':
      return `Web search is unavailable: the SearXNG instance does not allow the JSON format (HTTP ${status}); the operator must enable it. ${without}`;
    case 'search-rate-limited':
      return `${name} is limiting the rate of searches (HTTP ${status})${wait === null ? '' : `; it asks to wait ${wait} s`}. Search again only if it is essential; otherwise answer with what you have.`;
    case 'search-bad-request':
      return `${name} refused this search as malformed (HTTP ${status}); try a simpler query.`;
    default:
      return `${name} failed (HTTP ${status}); you may try once more, or answer without web search.`;
  }
}

/** What the operator should do, in the log line. */
function operatorAdvice(settings: WebSearchSettings, code: SearchErrorCode): string {
  const { profile } = settings;
  switch (code) {
    case 'search-bad-key':
      return profile.keySetting ? `Check ${profile.keySetting}.` : `Check that ${profile.urlSetting} allows the bot.`;
    case 'search-quota':
      return `The plan's quota is used up: raise it in ${profile.name}'s dashboard, or switch WEB_SEARCH to another provider.`;
    case 'search-format-disabled':
      return "Add json to search.formats in the instance's settings.yml (https://docs.searxng.org/admin/settings/settings_search).";
    case 'search-rate-limited':
      return 'Searches are coming faster than the plan allows.';
    default:
      return '';
  }
}

/** Seconds to wait, from `Retry-After` (seconds or a date), else Brave's `X-RateLimit-Reset` (its first window). */
function retryAfterSeconds(headers: Headers): number | null {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter && /^\d+$/.test(retryAfter)) return Number(retryAfter);
  if (retryAfter && !Number.isNaN(Date.parse(retryAfter)))
    return Math.max(0, Math.ceil((Date.parse(retryAfter) - Date.now()) / 1000));
  const reset = headers.get('x-ratelimit-reset')?.split(',')[0]?.trim();
  return reset && /^\d+$/.test(reset) ? Number(reset) : null;
}
