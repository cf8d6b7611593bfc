import { errorMessage } from '../errors.ts';

/** Discord's JSON error codes the bot meets, in words an operator can act on. */
const knownCodes: Record<number, string> = {
  50001: 'missing access (View Channel)',
  50013: 'missing permissions (Send Messages / Send Messages in Threads / Create Public Threads)',
  50083: 'the thread is archived',
  160005: 'the thread is locked',
  10003: 'the channel no longer exists',
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
