/**
 * Changes a moderator makes to the guild's roles and members, with the dispatches Discord sends for
 * them. The permissions they grant show in interactions (`member.permissions`) and in the bot's own
 * checks (`setBotPermissions` is in fake-discord.ts).
 */
import { GatewayDispatchEvents } from 'discord.js';
import type { FakeGateway } from './gateway.ts';
import type { CreateRoleInput } from './interaction-types.ts';
import type { World } from './world.ts';

export async function giveRole(world: World, gateway: FakeGateway, userId: string, roleId: string): Promise<void> {
  const member = world.members.get(userId);
  if (member === undefined) throw new Error(`fake Discord: no member ${userId}`);
  if (!world.roles.has(roleId)) throw new Error(`fake Discord: no role ${roleId}`);
  if (roleId === world.guildId) throw new Error('fake Discord: every member holds @everyone already');
  if (member.roles.includes(roleId)) return;
  member.roles = [...member.roles, roleId];
  const { user, ...rest } = member;
  await gateway.dispatch(GatewayDispatchEvents.GuildMemberUpdate, { guild_id: world.guildId, user, ...rest });
}

export async function createRole(world: World, gateway: FakeGateway, input: CreateRoleInput): Promise<string> {
  const position = Math.max(...[...world.roles.values()].map((role) => role.position)) + 1;
  const role = world.addRole({ id: world.nextId(), name: input.name, position, permissions: input.permissions ?? 0n });
  await gateway.dispatch(GatewayDispatchEvents.GuildRoleCreate, { guild_id: world.guildId, role });
  return role.id;
}

/**
 * Sets a channel's permission overwrites (Discord's `permission_overwrites`: per role or member,
 * allow and deny bits) and dispatches CHANNEL_UPDATE: discord.js computes a member's permissions in
 * that channel, and in its threads, from them. (The fake's own checks do not read them.)
 */
export async function setChannelOverwrites(
  world: World,
  gateway: FakeGateway,
  channelId: string,
  overwrites: { id: string; type: 0 | 1; allow: bigint; deny: bigint }[],
): Promise<void> {
  const channel = world.requireChannel(channelId) as { permission_overwrites?: unknown };
  channel.permission_overwrites = overwrites.map((each) => ({
    ...each,
    allow: each.allow.toString(),
    deny: each.deny.toString(),
  }));
  await gateway.dispatch(GatewayDispatchEvents.ChannelUpdate, channel);
}

export async function setRolePermissions(
  world: World,
  gateway: FakeGateway,
  roleId: string,
  bits: bigint,
): Promise<void> {
  const role = world.roles.get(roleId);
  if (role === undefined) throw new Error(`fake Discord: no role ${roleId}`);
  role.permissions = bits.toString();
  await gateway.dispatch(GatewayDispatchEvents.GuildRoleUpdate, { guild_id: world.guildId, role });
}
