/**
 * The JSON Discord sends for the guild, READY, the application and REST messages, built from the
 * world. Field sets follow Discord's documentation, so that discord.js sees what it would see live.
 */
import {
  ApplicationFlags,
  type APIGuildMemberNoUser,
  type GuildSystemChannelFlags,
  type Locale,
  type GatewayGuildCreateDispatchData,
  type GatewayReadyDispatchData,
} from 'discord.js';
import type { FakeMessage } from './types.ts';
import { discordTimestamp, seedIds, shardOf, type World } from './world.ts';

/** The bot's application (its id is the bot's user id, as for every bot made since 2020). */
export function applicationPayload(world: World, messageContentAllowed: boolean) {
  return {
    id: world.botUser.id,
    name: world.botUser.username,
    icon: null,
    description: 'A fake application for tests.',
    bot_public: false,
    bot_require_code_grant: false,
    verify_key: '0'.repeat(64),
    team: null,
    owner: world.users.get(world.ownerId),
    // GatewayMessageContentLimited: an unverified bot with the intent switched on in its settings.
    flags: messageContentAllowed ? ApplicationFlags.GatewayMessageContentLimited : 0,
    bot: world.botUser,
  };
}

export function readyPayload(
  world: World,
  sessionId: string,
  resumeGatewayUrl: string,
  messageContentAllowed: boolean,
  shard: [number, number] = [0, 1],
): GatewayReadyDispatchData {
  return {
    v: 10,
    user: world.botUser,
    // A shard's session is told of the guilds that are its own only.
    guilds: guildIdsOfShard(world, shard).map((id) => ({ id, unavailable: true })),
    session_id: sessionId,
    resume_gateway_url: resumeGatewayUrl,
    shard,
    // discord-api-types also lists `flags_new`, which Discord does not send in READY.
    application: {
      id: world.botUser.id,
      flags: applicationPayload(world, messageContentAllowed).flags,
    } as GatewayReadyDispatchData['application'],
  };
}

/** The guilds whose events go to `shard` (`[id, count]`), the seeded one first. */
export function guildIdsOfShard(world: World, shard: [number, number]): string[] {
  return [...world.guilds.keys()].filter((id) => shardOf(id, shard[1]) === shard[0]);
}

/** GUILD_CREATE: without it discord.js waits 15 s for the guild before `ready`. */
export function guildCreatePayload(world: World, guildId = world.guildId): GatewayGuildCreateDispatchData {
  const owner = world.ownerId;
  // Each guild has its own @everyone (the guild's id); the other roles are shared by every guild.
  const roles = [...world.roles.values()].filter((role) => role.id === guildId || !world.guilds.has(role.id));
  return {
    id: guildId,
    name: world.guilds.get(guildId)?.name ?? world.guildName,
    icon: null,
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    owner_id: owner,
    region: 'deprecated',
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: 1,
    default_message_notifications: 1,
    explicit_content_filter: 2,
    roles,
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: guildId === world.guildId ? seedIds.general : null,
    system_channel_flags: 0 as GuildSystemChannelFlags,
    rules_channel_id: null,
    max_presences: null,
    max_members: 500000,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: 'en-US' as Locale,
    public_updates_channel_id: null,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
    hub_type: null,
    incidents_data: null,
    joined_at: world.members.get(world.botUser.id)!.joined_at!,
    large: false,
    unavailable: false,
    member_count: world.members.size,
    voice_states: [],
    members: [...world.members.values()],
    // Discord leaves guild_id out of the channels inside GUILD_CREATE, but not out of its threads.
    channels: world
      .textChannels()
      .filter((channel) => channel.guild_id === guildId)
      .map(({ guild_id: _guildId, ...channel }) => channel) as GatewayGuildCreateDispatchData['channels'],
    threads: world
      .threads()
      .filter(
        (thread) => thread.guild_id === guildId && !thread.thread_metadata?.archived,
      ) as GatewayGuildCreateDispatchData['threads'],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** A member as embedded in MESSAGE_CREATE (`member`, and each mention's `member`): without `user`. */
export function memberWithoutUser(world: World, userId: string): APIGuildMemberNoUser | undefined {
  const member = world.members.get(userId);
  if (member === undefined) return undefined;
  const { user: _user, ...rest } = member;
  return rest as APIGuildMemberNoUser;
}

/** A message as the REST API returns it: no `guild_id` nor `member` (those are gateway extras). */
export function restMessage(message: FakeMessage): unknown {
  const { guild_id: _guildId, member: _member, ...rest } = message;
  return { ...rest, mentions: rest.mentions.map(({ member: _m, ...user }) => user) };
}

/** A thread member for the bot, sent with a thread it created or joined. */
export function botThreadMember(world: World, threadId: string) {
  return { id: threadId, user_id: world.botUser.id, join_timestamp: discordTimestamp(), flags: 1 };
}
