import { UserFacingError } from './errors.ts';
import { formatWait } from '../text/duration.ts';

/** What went wrong with the model service, in terms a person can act on (`model-KIND` in the log's `errorCode`). */
export const modelErrorKinds = [
  'rate-limited',
  'quota-exceeded',
  'unavailable',
  'context-too-long',
  'bad-credentials',
  'model-not-found',
  'wrong-endpoint',
  'invalid-response',
  'rejected',
] as const;
export type ModelErrorKind = (typeof modelErrorKinds)[number];

/** The error's code in the log and the step log: `model-unavailable`; `model-not-found` as it is. */
export function modelErrorCode(kind: ModelErrorKind): string {
  return kind.startsWith('model-') ? kind : `model-${kind}`;
}

/** What the server said when it refused a request: its error code, message and whole error body. */
export interface ServerReply {
  code: string | null;
  message: string;
  body: unknown;
}

/**
 * A failure of the model service after the client's own retries. `retryAfterSeconds` is set when
 * the service said how long to wait.
 */
export class ModelError extends UserFacingError {
  readonly kind: ModelErrorKind;
  readonly status: number | null;
  readonly retryAfterSeconds: number | null;
  /** The server's own words, when it answered with an error (to recognise a quirk and fix the request). */
  readonly reply: ServerReply | null;

  constructor(
    kind: ModelErrorKind,
    options: {
      status?: number | null;
      retryAfterSeconds?: number | null;
      detail: string;
      cause?: unknown;
      reply?: ServerReply;
    },
  ) {
    const retryAfterSeconds = options.retryAfterSeconds ?? null;
    super(modelErrorCode(kind), userMessageFor(kind, retryAfterSeconds), {
      detail: options.detail,
      cause: options.cause,
    });
    this.kind = kind;
    this.status = options.status ?? null;
    this.retryAfterSeconds = retryAfterSeconds;
    this.reply = options.reply ?? null;
  }
}

function userMessageFor(kind: ModelErrorKind, retryAfterSeconds: number | null): string {
  switch (kind) {
    case 'rate-limited':
      return retryAfterSeconds === null
        ? 'The model is rate-limited right now. Please try again in a minute.'
        : `The model is rate-limited right now. Please try again in ${formatWait(retryAfterSeconds)}.`;
    case 'quota-exceeded':
      return "The model service says this bot's quota is used up. The operator needs to check the account's billing.";
    case 'unavailable':
      return 'The model service is not answering right now. Please try again in a few minutes.';
    case 'context-too-long':
      return 'This conversation is too long for the model. Start a new thread, or ask a moderator to reset this one.';
    case 'bad-credentials':
      return "The model service refused the bot's credentials. The operator needs to check OPENAI_API_KEY.";
    case 'model-not-found':
      return 'The model service does not know the configured model. The operator needs to check OPENAI_MODEL.';
    case 'wrong-endpoint':
      return 'The model service has no chat endpoint at the configured address. The operator needs to check OPENAI_BASE_URL (it usually ends in /v1).';
    case 'invalid-response':
      return 'The model service sent a reply the bot could not read. Please try again.';
    case 'rejected':
      return 'The model service refused the request. The operator can find the cause in the logs.';
  }
}
