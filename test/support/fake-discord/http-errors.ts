/**
 * Discord's JSON errors, thrown by route handlers and turned into responses in one place (rest.ts).
 * Codes and messages are Discord's: https://discord.com/developers/docs/topics/opcodes-and-status-codes
 */

/** An error answer: `status` with Discord's `{ message, code, errors? }` body. */
export class DiscordHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message: string; code: number; errors?: unknown },
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${body.message} (${body.code})`);
    this.name = new.target.name;
  }
}

export const unauthorized = () => new DiscordHttpError(401, { message: '401: Unauthorized', code: 0 });
export const notFound = () => new DiscordHttpError(404, { message: '404: Not Found', code: 0 });
export const unknownChannel = () => new DiscordHttpError(404, { message: 'Unknown Channel', code: 10003 });
export const unknownMessage = () => new DiscordHttpError(404, { message: 'Unknown Message', code: 10008 });
export const missingAccess = () => new DiscordHttpError(403, { message: 'Missing Access', code: 50001 });
export const missingPermissions = () => new DiscordHttpError(403, { message: 'Missing Permissions', code: 50013 });
export const emptyMessage = () => new DiscordHttpError(400, { message: 'Cannot send an empty message', code: 50006 });
export const notAuthor = () =>
  new DiscordHttpError(403, { message: 'Cannot edit a message authored by another user', code: 50005 });
export const wrongChannelType = () =>
  new DiscordHttpError(400, { message: 'Cannot execute action on this channel type', code: 50024 });
export const entityTooLarge = () => new DiscordHttpError(413, { message: 'Request entity too large', code: 40005 });
export const threadLocked = () => new DiscordHttpError(400, { message: 'Thread is locked', code: 160005 });
export const unknownInteraction = () => new DiscordHttpError(404, { message: 'Unknown interaction', code: 10062 });
export const alreadyAcknowledged = () =>
  new DiscordHttpError(400, { message: 'Interaction has already been acknowledged.', code: 40060 });
export const unknownCommand = () => new DiscordHttpError(404, { message: 'Unknown application command', code: 10063 });
export const unknownWebhook = () => new DiscordHttpError(404, { message: 'Unknown Webhook', code: 10015 });
export const invalidWebhookToken = () => new DiscordHttpError(401, { message: 'Invalid Webhook Token', code: 50027 });
export const threadExists = () =>
  new DiscordHttpError(400, { message: 'A thread has already been created for this message', code: 160004 });

/** Discord's 400 for a body that breaks its rules; `errors` maps a field to its complaints. */
export function invalidFormBody(errors: Record<string, string>): DiscordHttpError {
  const nested = Object.fromEntries(
    Object.entries(errors).map(([field, message]) => [field, { _errors: [{ code: 'BASE_TYPE_INVALID', message }] }]),
  );
  return new DiscordHttpError(400, { message: 'Invalid Form Body', code: 50035, errors: nested });
}
