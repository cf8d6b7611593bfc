import { type GuildBasedChannel, type GuildMember, PermissionFlagsBits } from 'discord.js';

/**
 * A moderator may manage messages where they are, or holds one of the configured moderator roles.
 * Checked from Discord's own view of the member every time, never from what the model says.
 */
export function isModerator(member: GuildMember | null, channel: GuildBasedChannel | null, moderatorRoleIds: readonly string[]): boolean {
  if (!member) return false;
  if (moderatorRoleIds.some((roleId) => member.roles.cache.has(roleId))) return true;
  const permissions = channel ? member.permissionsIn(channel) : member.permissions;
  return permissions.has(PermissionFlagsBits.ManageMessages);
}

/** Moderator of the whole server: Manage Messages as a server permission, or a moderator role. */
export function isServerModerator(member: GuildMember | null, moderatorRoleIds: readonly string[]): boolean {
  return isModerator(member, null, moderatorRoleIds);
}
