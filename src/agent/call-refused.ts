import { UserFacingError } from '../errors.ts';

/**
 * A model call refused before it was made, by a rule of the caller (a daily token budget). Ends
 * the run as failed with this message; `quiet` when the people concerned were told already.
 */
export class CallRefused extends UserFacingError {
  constructor(
    userMessage: string,
    readonly quiet: boolean,
  ) {
    super('call-refused', userMessage);
  }
}
