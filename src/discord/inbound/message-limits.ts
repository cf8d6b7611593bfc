/**
 * A message against its author's limits: the per-person rate, and the daily token budget of its
 * server (or the one all DMs share). Past either, one polite reply per window, posted before the
 * message counts as handled, and the server's log channel hears of it.
 */
import type { Logger } from '../../agent/logger.ts';
import type { UsageLimits } from '../../conversation/usage-limits.ts';
import type { ModeratorLog } from '../moderator-log/moderator-log.ts';
import { noPings } from '../outbound/send.ts';
import type { RoutedMessage } from './message-intake.ts';

export async function withinLimits(
  deps: { limits: UsageLimits; moderatorLog: Pick<ModeratorLog, 'record'>; logger: Logger },
  message: RoutedMessage,
): Promise<boolean> {
  // A DM has no server (guildId null): the budget all DMs share applies.
  const verdict = deps.limits.check(message.author.id, message.guildId);
  if (verdict.ok) return true;
  if (verdict.tell) {
    // A DM belongs to no server: no server's moderators hear of it.
    if (message.guildId !== null)
      deps.moderatorLog.record(message.guildId, {
        kind: 'refused',
        who: { id: message.author.id, name: message.member?.displayName ?? message.author.displayName },
        channelId: message.channelId,
        reason: verdict.message,
      });
    await message
      .reply({ content: verdict.message, allowedMentions: noPings })
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, channelId: message.channelId }, 'could not post the limit notice'),
      );
  }
  return false;
}
