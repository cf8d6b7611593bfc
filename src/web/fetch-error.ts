import { UserFacingError } from '../agent/errors.ts';

/** Why a fetch did not give a page; the codes are stable for logs and tests. */
export type FetchErrorCode =
  | 'fetch-invalid-url'
  | 'fetch-refused-address'
  | 'fetch-unresolved'
  | 'fetch-too-many-redirects'
  | 'fetch-timeout'
  | 'fetch-failed'
  | 'fetch-unreadable-type'
  | 'fetch-bad-encoding';

/**
 * A fetch that was refused or failed. `userMessage` goes to the model and the person; it never
 * names an address a host name resolved to (that would map a private network for whoever asks);
 * the detail with the address goes to the logs.
 */
export class FetchError extends UserFacingError {
  declare readonly code: FetchErrorCode;

  constructor(code: FetchErrorCode, userMessage: string, options?: { cause?: unknown; detail?: string }) {
    super(code, userMessage, options);
  }
}
