import { UserFacingError } from '../../agent/errors.ts';

/** Why a web search gave no results; the codes are stable for logs and tests. */
export type SearchErrorCode =
  | 'search-bad-key'
  | 'search-quota'
  | 'search-rate-limited'
  | 'search-format-disabled'
  | 'search-timeout'
  | 'search-unreachable'
  | 'search-bad-request'
  | 'search-provider-error'
  | 'search-bad-response';

/**
 * A search the provider refused or could not do. `userMessage` is the observation the model reads
 * (what happened, whether trying again can help); `message` (the detail) is the operator's log
 * line. Neither ever holds the provider's key.
 */
export class SearchError extends UserFacingError {
  declare readonly code: SearchErrorCode;

  constructor(code: SearchErrorCode, userMessage: string, options: { detail: string; cause?: unknown }) {
    super(code, userMessage, options);
  }
}
