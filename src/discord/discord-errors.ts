import { DiscordjsErrorCodes } from 'discord.js';
import { describeError, errorMessage, toError, UserFacingError } from '../agent/errors.ts';

/**
 * A message (or an edit of one) the server's AutoMod blocked: 400 with this code. Editing a deferred
 * reply may meet it, in a server that never added the bot too.
 * https://discord.com/developers/docs/topics/opcodes-and-status-codes#json
 * https://discord.com/developers/docs/change-log#userinstalled-apps-general-availability
 */
export const autoModBlockedCode = 200000;

/** Discord's JSON error codes the bot meets, in words an operator can act on. */
const knownCodes: Record<number, string> = {
  50001: 'missing access (View Channel)',
  50013: 'missing permissions (Send Messages / Send Messages in Threads / Create Public Threads)',
  50083: 'the thread is archived',
  160005: 'the thread is locked',
  10003: 'the channel no longer exists',
  [autoModBlockedCode]: "blocked by the server's AutoMod",
};

/** A Discord failure as an operator reads it: the permission or state that stopped it. */
export function describeDiscordError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && knownCodes[code] ? knownCodes[code] : errorMessage(error);
}

/** Unknown Channel, Missing Access: the channel is gone, or the bot may no longer see it. */
export const channelGoneCodes: readonly number[] = [10003, 50001];

/** Whether a failure is one of these Discord JSON error codes. */
export function isDiscordCode(error: unknown, codes: readonly number[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && codes.includes(code);
}

/** Why Discord refused the connection, in words an operator can act on. */
class DiscordLoginError extends UserFacingError {}

/** A refused login (or a refused first request with the token), as a `DiscordLoginError` when the cause is the operator's to fix. */
export function explainLoginError(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  if (code === DiscordjsErrorCodes.TokenInvalid || (error as { status?: unknown }).status === 401) {
    return new DiscordLoginError(
      'discord-token-rejected',
      'Discord rejected DISCORD_TOKEN. Copy the bot token again from the Developer Portal (your application → Bot → Reset Token) into .env.',
      { cause: error },
    );
  }
  // @discordjs/ws rejects login with a plain Error('Used disallowed intents') after close code 4014.
  if (
    code === DiscordjsErrorCodes.DisallowedIntents ||
    code === 4014 ||
    /disallowed intents/i.test(String((error as Error).message))
  ) {
    return new DiscordLoginError(
      'discord-intent-missing',
      'Discord refused the Message Content intent. Turn on "Message Content Intent" in the Developer Portal (your application → Bot → Privileged Gateway Intents), then start again.',
      { cause: error },
    );
  }
  return toError(error);
}

/**
 * Why the bot could not connect to Discord at start, as the plain text it prints on refusing to
 * start: what the operator can fix (the token, the intent, the address), else the failure itself.
 */
export function describeStartFailure(error: unknown, apiUrl: string): string {
  const explained = explainLoginError(error);
  if (explained instanceof UserFacingError) return explained.userMessage;
  // A failed connection is Node's system error (syscall "connect", "getaddrinfo"), or fetch's with it as cause.
  const network = [error, (error as { cause?: unknown } | null)?.cause].find(
    (candidate) => typeof (candidate as { syscall?: unknown } | null)?.syscall === 'string',
  );
  if (network)
    return `Cannot start: Discord could not be reached at ${apiUrl} (${errorMessage(network)}). Check the network, or DISCORD_API_URL.`;
  return `Cannot start: connecting to Discord failed (${describeError(error)}).`;
}
