/**
 * Where a moderator's setting goes: the server, or the channel the command was used in (a
 * thread's parent: threads inherit from their channel), or a thread (`/model`).
 */
import type { SettingScope } from '../../../db/place-settings.ts';
import type { NewSettingChange } from '../../../db/place-settings.ts';
import type { EffectiveSettings, Place } from '../../place-settings/effective-settings.ts';
import { settingsOfConversation } from '../../place-settings/place-choice.ts';
import type { CommandContext, CommandInteraction } from './command-context.ts';
import { isServerModerator } from './moderation.ts';
import type { ModalSubmitInteraction } from 'discord.js';

type Used = CommandInteraction | ModalSubmitInteraction<'cached'>;

/** The place a command was used in: its thread (if any), its channel, its server. */
export function placeOfInteraction(interaction: Used): Place {
  const channel = interaction.channel;
  const thread = channel?.isThread() ? channel : null;
  return {
    guildId: interaction.guildId,
    channelId: thread ? thread.parentId : (channel?.id ?? interaction.channelId),
    threadId: thread?.id ?? null,
  };
}

/** The settings in effect where the command was used. */
export function settingsHere(interaction: Used, context: Pick<CommandContext, 'store' | 'models'>): EffectiveSettings {
  const place = placeOfInteraction(interaction);
  return settingsOfConversation(context.store, context.models, {
    guild_id: place.guildId,
    channel_id: place.channelId,
    thread_id: place.threadId,
  })!;
}

/**
 * The scope's id for a change made here, or why it cannot be made: server-wide settings are for
 * moderators of the whole server, not of one channel.
 */
export function scopeHere(
  interaction: Used,
  context: Pick<CommandContext, 'moderatorRoleIds'>,
  scope: SettingScope,
): { scope: SettingScope; scopeId: string } | string {
  const place = placeOfInteraction(interaction);
  if (scope === 'server') {
    if (!isServerModerator(interaction.member, context.moderatorRoleIds))
      return 'Settings for the whole server are for moderators of the whole server.';
    return { scope, scopeId: place.guildId };
  }
  if (scope === 'thread') return place.threadId ? { scope, scopeId: place.threadId } : 'This is not a thread.';
  return place.channelId ? { scope, scopeId: place.channelId } : 'This command works in a channel or a thread.';
}

/** A change made by the person who used the command, at `target`. */
export function changeBy(
  interaction: Used,
  target: { scope: SettingScope; scopeId: string },
  key: string,
  value: string | null,
): NewSettingChange {
  return {
    guildId: interaction.guildId,
    ...target,
    key,
    value,
    changedById: interaction.user.id,
    changedByName: interaction.member.displayName,
  };
}
