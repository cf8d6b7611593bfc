/**
 * What the operator chose for content checks (CONTENT_CHECK and its settings, read in
 * src/settings/config.ts): which check, where it is asked, and what an outage means.
 */

/** `off`: nothing is checked anywhere; `moderations`: an OpenAI-style moderation endpoint; `guard`: a guard model. */
export type ContentCheckKind = 'off' | 'moderations' | 'guard';

/** The server a check is asked of: its base URL, key and model, and how long to wait for it. */
export interface CheckServer {
  baseURL: string;
  apiKey: string | null;
  model: string;
  timeoutSeconds: number;
  maxRetries: number;
}

export type ContentCheckSettings =
  | { kind: 'off' }
  | {
      kind: 'moderations' | 'guard';
      server: CheckServer;
      /** CONTENT_CHECK_ON_ERROR: when the check cannot answer, let the text through or refuse it. */
      onError: 'allow' | 'refuse';
    };
