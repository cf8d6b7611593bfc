import { type GuildBasedChannel, type GuildMember, PermissionFlagsBits, type User } from 'discord.js';
import type { Requester } from '../../agent/tool.ts';

/**
 * A moderator may manage messages where they are, or holds one of the configured moderator roles.
 * Checked from Discord's own view of the member every time, never from what the model says.
 */
export function isModerator(
  member: GuildMember | null,
  channel: GuildBasedChannel | null,
  moderatorRoleIds: readonly string[],
): boolean {
  if (!member) return false;
  if (moderatorRoleIds.some((roleId) => member.roles.cache.has(roleId))) return true;
  const permissions = channel ? member.permissionsIn(channel) : member.permissions;
  return permissions.has(PermissionFlagsBits.ManageMessages);
}

/** Moderator of the whole server: Manage Messages as a server permission, or a moderator role. */
export function isServerModerator(member: GuildMember | null, moderatorRoleIds: readonly string[]): boolean {
  return isModerator(member, null, moderatorRoleIds);
}

/** Who asked, and whether Discord says they are a moderator where they asked. */
export function discordRequester(
  user: User,
  member: GuildMember | null,
  channel: GuildBasedChannel | null,
  moderatorRoleIds: readonly string[],
): Requester {
  return {
    id: user.id,
    displayName: member?.displayName ?? user.displayName,
    isModerator: isModerator(member, channel, moderatorRoleIds),
  };
}
