/**
 * The doctor's line to the server as it is, without the bot's fixes: the same base URL, key,
 * headers and query the bot uses (the profile's `connection()`, so Azure gets its `api-key` header
 * and `api-version`), for the transport's chat requests and for the few the doctor sends with
 * fetch (the model list, and a streamed reply, which the transport does not read).
 */
import { type ChatTransport, createOpenAITransport } from '../model-servers/openai-transport.ts';
import type { ProviderProfile } from '../model-servers/profiles/profile.ts';

export interface RawConnection {
  /** Chat requests, read whole; a failure is a `ModelError`. No retries of its own beyond one. */
  transport: ChatTransport;
  /** The full URL of an endpoint under the base URL (`/models`), with the profile's query. */
  url(path: string): string;
  /** The headers a fetch needs: the key, and the profile's own. */
  headers: Record<string, string>;
}

/** The connection to the server in `settings` as its profile wants it, without the bot's fixes. */
export function rawConnection(
  profile: ProviderProfile,
  settings: { baseURL: string; apiKey: string | null },
  limitSeconds: number,
): RawConnection {
  const connection = profile.connection?.(settings.baseURL, settings.apiKey) ?? { baseURL: settings.baseURL };
  return {
    transport: createOpenAITransport({
      apiKey: settings.apiKey,
      ...connection,
      // One retry, and no long Retry-After sleeps: each probe has a time limit of its own.
      maxRetries: 1,
      timeoutSeconds: limitSeconds,
      maxRetryWaitSeconds: 2,
    }),
    url(path) {
      const url = new URL(connection.baseURL);
      url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
      for (const [name, value] of Object.entries(connection.query ?? {})) url.searchParams.set(name, value);
      return url.toString();
    },
    headers: {
      ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      ...connection.headers,
    },
  };
}

/** A signal that fires when `signal` does or `ms` have passed, whichever is first. */
export function withTimeLimit(signal: AbortSignal, ms: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(ms)]);
}
