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
