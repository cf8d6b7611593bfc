import { type GuildMember, type GuildTextBasedChannel, PermissionFlagsBits } from 'discord.js';

/**
 * A moderator may manage messages where they are, or holds one of the configured moderator roles.
 * Checked from Discord's own view of the member every time, never from what the model says.
 */
export function isModerator(member: GuildMember | null, channel: GuildTextBasedChannel | null, moderatorRoleIds: readonly string[]): boolean {
  if (!member) return false;
  if (moderatorRoleIds.some((roleId) => member.roles.cache.has(roleId))) return true;
  const permissions = channel ? member.permissionsIn(channel) : member.permissions;
  return permissions.has(PermissionFlagsBits.ManageMessages);
}
