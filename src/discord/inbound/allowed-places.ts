import {
  type Channel,
  ChannelType,
  type NewsChannel,
  type StageChannel,
  type TextChannel,
  type VoiceChannel,
} from 'discord.js';
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

/**
 * The channels where a mention starts a conversation: text and announcement channels, and the text
 * chat of voice and stage channels (a thread is its own place).
 */
export function isMentionChannel(channel: Channel): channel is TextChannel | NewsChannel | VoiceChannel | StageChannel {
  return (
    holdsThreads(channel) || channel.type === ChannelType.GuildVoice || channel.type === ChannelType.GuildStageVoice
  );
}

/**
 * Whether a conversation started here gets a thread: only text and announcement channels have
 * threads of their messages (discord.js's Message#startThread refuses others, MessageThreadParent);
 * a voice or stage channel's text chat holds the conversation as a reply chain.
 */
export function holdsThreads(channel: Channel): channel is TextChannel | NewsChannel {
  return channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement;
}
