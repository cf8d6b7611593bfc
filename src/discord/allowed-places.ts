import type { DiscordSettings } from '../config-shape.ts';

/**
 * Whether the bot holds conversations here: the operator's allow-lists of servers and channels
 * (empty lists allow all). A thread counts as its parent channel.
 */
export function isAllowedPlace(
  settings: Pick<DiscordSettings, 'allowedGuildIds' | 'allowedChannelIds'>,
  guildId: string,
  channelId: string | null,
): boolean {
  const guildAllowed = settings.allowedGuildIds.length === 0 || settings.allowedGuildIds.includes(guildId);
  const channelAllowed =
    settings.allowedChannelIds.length === 0 || (channelId !== null && settings.allowedChannelIds.includes(channelId));
  return guildAllowed && channelAllowed;
}
