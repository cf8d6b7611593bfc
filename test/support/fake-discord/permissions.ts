/**
 * The permission bits the fake seeds and enforces. The bot's permissions in a channel are the OR of
 * its roles' bits (@everyone and its managed role); channel overwrites are not modelled.
 */
import { type APIGuildMember, type APIRole, PermissionFlagsBits as Bits, PermissionsBitField } from 'discord.js';

/** What @everyone may do on a fresh server (a subset of Discord's defaults that matter here). */
export const defaultEveryonePermissions =
  Bits.ViewChannel |
  Bits.SendMessages |
  Bits.SendMessagesInThreads |
  Bits.CreatePublicThreads |
  Bits.ReadMessageHistory |
  Bits.EmbedLinks |
  Bits.AttachFiles |
  Bits.AddReactions |
  Bits.UseApplicationCommands;

/**
 * What the bot's invite grants: everything it needs to answer in threads, and to archive and lock
 * them. Not Administrator, so that a missing bit shows up in tests as it would in production.
 */
export const defaultBotPermissions = defaultEveryonePermissions | Bits.ManageThreads | Bits.CreatePrivateThreads;

/** Whether `granted` includes every bit of `required` (Administrator includes all). */
export function allows(granted: bigint, required: bigint): boolean {
  return (granted & Bits.Administrator) !== 0n || (granted & required) === required;
}

/** Every permission bit there is: what the guild owner and an Administrator hold. */
export const allPermissions = PermissionsBitField.All;

/** What a member's permissions are computed from: the fake's World has it (and imports this file). */
export interface GuildMembership {
  guildId: string;
  ownerId: string;
  members: ReadonlyMap<string, Pick<APIGuildMember, 'roles'>>;
  roles: ReadonlyMap<string, Pick<APIRole, 'permissions'>>;
}

/**
 * A member's permissions in any channel of the guild, as Discord computes them for an interaction's
 * `member.permissions` and `app_permissions`: the owner holds all, Administrator grants all, and
 * otherwise the OR of @everyone and the member's roles (channel overwrites are not modelled).
 */
export function memberPermissions(guild: GuildMembership, userId: string): bigint {
  if (userId === guild.ownerId) return allPermissions;
  const roleIds = [guild.guildId, ...(guild.members.get(userId)?.roles ?? [])];
  const bits = roleIds.reduce((granted, id) => granted | BigInt(guild.roles.get(id)?.permissions ?? '0'), 0n);
  return (bits & Bits.Administrator) !== 0n ? allPermissions : bits;
}

export { Bits as PermissionBits };
