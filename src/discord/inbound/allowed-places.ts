import { type Channel, ChannelType, type NewsChannel, type TextChannel } from 'discord.js';
import type { DiscordSettings } from '../../settings/config-shape.ts';

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

/** The channels where a mention starts a conversation: text and announcement channels (a thread is its own place). */
export function isMentionChannel(channel: Channel): channel is TextChannel | NewsChannel {
  return channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement;
}
