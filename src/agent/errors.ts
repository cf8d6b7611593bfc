/**
 * The one base class for faults of the program or its infrastructure. `name` is the subclass's
 * name and `code` a stable string that logs and tests can match on.
 */
export class BotError extends Error {
  override readonly name: string;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A fault whose `userMessage` is safe to show to the person who met it: it names what happened
 * and what to do, and carries no secret, stack or internal detail.
 */
export class UserFacingError extends BotError {
  readonly userMessage: string;

  constructor(code: string, userMessage: string, options?: { cause?: unknown; detail?: string }) {
    super(code, options?.detail ?? userMessage, options);
    this.userMessage = userMessage;
  }
}

/**
 * What a person or the model may read of a failure: a `UserFacingError`'s `userMessage`, another
 * error's `message`, or anything else thrown as text.
 */
export function errorMessage(error: unknown): string {
  return error instanceof UserFacingError ? error.userMessage : error instanceof Error ? error.message : String(error);
}

/** A failure for logs and the step log: the error's name and message ("TypeError: x is not a function"), or anything else thrown as text. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** What was thrown, as an `Error` (a thrown string or object becomes one with its text as message, and itself as cause). */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}

/**
 * What a failed connection says went wrong, in the words of the system call (`ECONNREFUSED: connect
 * ECONNREFUSED 127.0.0.1:3172`, `ENOTFOUND: …`): fetch's own message is only "fetch failed", the
 * reason is in its cause. Anything else: its message.
 */
export function connectionProblem(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string')
    return `${cause.code}${typeof cause.message === 'string' ? `: ${cause.message}` : ''}`;
  return errorMessage(error);
}
