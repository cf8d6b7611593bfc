/**
 * The fake's state: one seeded guild with its users, roles, channels, threads and messages, stored
 * as the JSON Discord sends, plus the files it serves and the nonces it remembers. More guilds can be
 * added (for sharding): each has its own @everyone role and #general, and shares the seeded guild's
 * users and other roles.
 */
import {
  ChannelType,
  PermissionFlagsBits,
  type APIGuildMember,
  type APIOverwrite,
  type APIRole,
  type APIUser,
  type ChannelFlags,
  type GuildMemberFlags,
  type RoleFlags,
  type UserFlags,
} from 'discord.js';
import { DiscordHttpError, missingAccess, missingPermissions, unknownChannel, unknownMessage } from './http-errors.ts';
import { allows, defaultBotPermissions, defaultEveryonePermissions } from './permissions.ts';
import type { FakeChannel, FakeMessage, FakeThread } from './types.ts';
import type { AbsentPlace } from './shared-types.ts';

/** The ids of the seeded world (fixed, so that a failing test's output is easy to read). */
export const seedIds = {
  guild: '100000000000000001',
  general: '100000000000000010',
  random: '100000000000000011',
  botRole: '100000000000000020',
  moderatorRole: '100000000000000021',
  ada: '200000000000000001',
  bob: '200000000000000002',
  bot: '300000000000000001',
} as const;

const discordEpoch = 1420070400000n;

/** Bit-flag fields with no flag set (discord-api-types' flag enums have no 0 member). */
export const noFlags = 0;

/** Discord's timestamp format: ISO 8601 with microseconds and an explicit offset. */
export function discordTimestamp(date = new Date()): string {
  return date.toISOString().replace('Z', '000+00:00');
}

/** A file the fake serves over HTTP (an attachment's `url`). */
export interface ServedFile {
  contentType: string;
  body: Buffer;
  /**
   * Served gzip-compressed (`content-encoding: gzip`, whatever was asked) and cut to this many
   * compressed bytes, its `content-length` saying so: a CDN or proxy that compresses and loses the end.
   */
  gzipCutTo?: number;
}

/** The shard a guild's events go to: `(guild_id >> 22) % shard count` (https://discord.com/developers/docs/topics/gateway#sharding). */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

export class World {
  readonly guildId: string = seedIds.guild;
  readonly guildName = 'Test Server';
  /** Every guild the bot is in, by id: the seeded one first. */
  readonly guilds = new Map<string, { id: string; name: string }>([
    [seedIds.guild, { id: seedIds.guild, name: 'Test Server' }],
  ]);
  readonly ownerId = seedIds.ada;
  readonly users = new Map<string, APIUser>();
  readonly members = new Map<string, APIGuildMember>();
  readonly roles = new Map<string, APIRole>();
  readonly channels = new Map<string, FakeChannel>();
  /** Places the bot is not in, by channel id (user-installs.ts): the gateway never tells of them. */
  readonly absentPlaces = new Map<string, AbsentPlace>();
  /** Messages by channel or thread id, oldest first. */
  readonly messagesByChannel = new Map<string, FakeMessage[]>();
  /** Files by URL path (`/attachments/…`). */
  readonly files = new Map<string, ServedFile>();
  /** The paths of files served, in order (to check what the bot fetched, and what not). */
  readonly filesServed: string[] = [];
  /** Pinned messages by channel, most recently pinned first, with when each was pinned (ISO). */
  readonly pins = new Map<string, { messageId: string; pinnedAt: string }[]>();
  /** The bot's messages by nonce, for `enforce_nonce`. */
  readonly nonces = new Map<string, { message: FakeMessage; at: number }>();
  private lastId = 0n;

  constructor() {
    this.addUser({ id: seedIds.ada, username: 'ada', global_name: 'Ada' }, [seedIds.moderatorRole]);
    this.addUser({ id: seedIds.bob, username: 'bob', global_name: 'Bob' }, []);
    this.addUser(
      {
        id: seedIds.bot,
        username: 'agent-bot',
        global_name: null,
        discriminator: '4821',
        bot: true,
        verified: true,
        mfa_enabled: false,
      },
      [seedIds.botRole],
    );
    this.addRole({ id: seedIds.guild, name: '@everyone', position: 0, permissions: defaultEveryonePermissions });
    this.addRole({
      id: seedIds.moderatorRole,
      name: 'Moderator',
      position: 1,
      permissions: defaultEveryonePermissions | PermissionFlagsBits.ManageMessages | PermissionFlagsBits.ManageThreads,
      hoist: true,
    });
    this.addRole({
      id: seedIds.botRole,
      name: 'agent-bot',
      position: 2,
      permissions: defaultBotPermissions,
      managed: true,
      tags: { bot_id: seedIds.bot },
    });
    this.addTextChannel(seedIds.general, 'general', 0, 'General chat; mention the bot to start a conversation.');
    this.addTextChannel(seedIds.random, 'random', 1, null);
  }

  /**
   * Adds a guild with an @everyone role and a #general channel; with `shard`, its id is chosen so
   * that its events go to that shard (`[shard id, shard count]`).
   */
  addGuild(name: string, shard?: [number, number]): { guildId: string; generalId: string } {
    let base = BigInt(this.nextId()) >> 22n;
    if (shard) while (Number(base % BigInt(shard[1])) !== shard[0]) base += 1n;
    const guildId = ((base << 22n) | 1n).toString();
    if (BigInt(guildId) > this.lastId) this.lastId = BigInt(guildId);
    this.guilds.set(guildId, { id: guildId, name });
    this.addRole({ id: guildId, name: '@everyone', position: 0, permissions: defaultEveryonePermissions });
    const generalId = this.nextId();
    this.addTextChannel(generalId, 'general', 0, null, guildId);
    return { guildId, generalId };
  }

  /** The guild a channel or thread belongs to (the seeded one for an unknown channel). */
  guildOf(channelId: string): string {
    return this.channels.get(channelId)?.guild_id ?? this.absentPlaces.get(channelId)?.guildId ?? this.guildId;
  }

  /** A new snowflake, greater than every one made before (time-based, like Discord's). */
  nextId(): string {
    const fromClock = (BigInt(Date.now()) - discordEpoch) << 22n;
    this.lastId = fromClock > this.lastId ? fromClock : this.lastId + 1n;
    return this.lastId.toString();
  }

  get botUser(): APIUser {
    return this.users.get(seedIds.bot)!;
  }

  /** Adds a user and makes them a member holding `roleIds` (besides @everyone). */
  addUser(fields: Partial<APIUser> & { id: string; username: string }, roleIds: string[]): APIUser {
    const user: APIUser = {
      discriminator: '0',
      global_name: null,
      avatar: null,
      public_flags: noFlags as UserFlags,
      flags: noFlags as UserFlags,
      banner: null,
      accent_color: null,
      avatar_decoration_data: null,
      ...fields,
    };
    this.users.set(user.id, user);
    this.members.set(user.id, {
      user,
      nick: null,
      avatar: null,
      banner: null,
      roles: roleIds,
      joined_at: discordTimestamp(new Date('2024-01-01T00:00:00Z')),
      premium_since: null,
      deaf: false,
      mute: false,
      flags: noFlags as GuildMemberFlags,
      pending: false,
      communication_disabled_until: null,
    });
    return user;
  }

  /** Adds a role to the guild (as Discord sends roles: every field present). */
  addRole(fields: {
    id: string;
    name: string;
    position: number;
    permissions: bigint;
    managed?: boolean;
    hoist?: boolean;
    tags?: APIRole['tags'];
  }): APIRole {
    const { permissions, ...rest } = fields;
    const role: APIRole = {
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      icon: null,
      unicode_emoji: null,
      managed: false,
      mentionable: false,
      flags: noFlags as RoleFlags,
      ...rest,
      permissions: permissions.toString(),
    };
    this.roles.set(role.id, role);
    return role;
  }

  /** The fields every guild channel of the fake has, whatever its type (its own are added by the caller). */
  private guildChannel<Type extends ChannelType>(
    id: string,
    type: Type,
    name: string,
    position: number,
    guildId = this.guildId,
  ) {
    return {
      id,
      type,
      guild_id: guildId,
      name,
      position,
      nsfw: false,
      parent_id: null,
      last_message_id: null,
      rate_limit_per_user: 0,
      permission_overwrites: [] as APIOverwrite[],
      flags: noFlags as ChannelFlags,
    };
  }

  addTextChannel(id: string, name: string, position: number, topic: string | null, guildId = this.guildId): void {
    this.channels.set(id, {
      ...this.guildChannel(id, ChannelType.GuildText, name, position, guildId),
      topic,
      default_auto_archive_duration: 1440,
    });
    this.messagesByChannel.set(id, []);
  }

  /** A voice channel (type 2): its text chat takes messages, and no threads. */
  addVoiceChannel(id: string, name: string): void {
    this.channels.set(id, {
      ...this.guildChannel(id, ChannelType.GuildVoice, name, this.textChannels().length),
      bitrate: 64_000,
      user_limit: 0,
      rtc_region: null,
    } as FakeChannel);
    this.messagesByChannel.set(id, []);
  }

  /**
   * A forum channel (type 15) whose posts are threads; `tags` are its available tags, given ids.
   * https://discord.com/developers/docs/resources/channel#forum-tag-object
   */
  addForumChannel(id: string, name: string, tags: readonly string[]): void {
    this.channels.set(id, {
      ...this.guildChannel(id, ChannelType.GuildForum, name, this.textChannels().length),
      topic: null,
      default_auto_archive_duration: 1440,
      available_tags: tags.map((tag) => ({
        id: this.nextId(),
        name: tag,
        moderated: false,
        emoji_id: null,
        emoji_name: null,
      })),
      default_reaction_emoji: null,
      default_thread_rate_limit_per_user: 0,
      default_sort_order: null,
      default_forum_layout: 0,
      template: '',
    } as FakeChannel);
  }

  /** The channel or thread, or Discord's 404 Unknown Channel. */
  requireChannel(id: string): FakeChannel {
    // Discord's answer in a place the bot is not in: it cannot see the channel.
    if (this.absentPlaces.has(id)) throw missingAccess();
    const channel = this.channels.get(id);
    if (channel === undefined) throw unknownChannel();
    return channel;
  }

  requireThread(id: string): FakeThread {
    const channel = this.requireChannel(id);
    if (!isThread(channel)) throw new DiscordHttpError(400, { message: `channel ${id} is not a thread`, code: 50024 });
    return channel;
  }

  requireMessage(channelId: string, messageId: string): FakeMessage {
    const message = this.messagesByChannel.get(channelId)?.find((candidate) => candidate.id === messageId);
    if (message === undefined) throw unknownMessage();
    return message;
  }

  /** Who a seeded name or an id stands for; an unknown user is added as a member on first use. */
  author(author: 'ada' | 'bob' | { id: string; username: string; bot?: boolean }): APIUser {
    if (author === 'ada' || author === 'bob') return this.users.get(seedIds[author])!;
    return (
      this.users.get(author.id) ??
      this.addUser({ id: author.id, username: author.username, ...(author.bot ? { bot: true } : {}) }, [])
    );
  }

  /** The bot's guild permissions: the OR of @everyone and the roles it holds. */
  botPermissions(): bigint {
    const roleIds = [this.guildId, ...(this.members.get(seedIds.bot)?.roles ?? [])];
    return roleIds.reduce((bits, id) => bits | BigInt(this.roles.get(id)?.permissions ?? '0'), 0n);
  }

  /** Throws Discord's 403 unless the bot may view the channel and has every bit of `required`. */
  requireBotPermission(required: bigint): void {
    const granted = this.botPermissions();
    if (!allows(granted, PermissionFlagsBits.ViewChannel)) throw missingAccess();
    if (!allows(granted, required)) throw missingPermissions();
  }

  botMay(required: bigint): boolean {
    return allows(this.botPermissions(), required);
  }

  /** Stores a new message and moves the channel's `last_message_id` (and a thread's counters). */
  storeMessage(message: FakeMessage): void {
    const list = this.messagesByChannel.get(message.channel_id) ?? [];
    list.push(message);
    this.messagesByChannel.set(message.channel_id, list);
    const channel = this.channels.get(message.channel_id);
    if (channel === undefined) return;
    channel.last_message_id = message.id;
    if (isThread(channel)) {
      channel.message_count = (channel.message_count ?? 0) + 1;
      channel.total_message_sent = (channel.total_message_sent ?? 0) + 1;
    }
  }

  removeMessage(channelId: string, messageId: string): FakeMessage {
    const message = this.requireMessage(channelId, messageId);
    const list = this.messagesByChannel.get(channelId)!;
    list.splice(list.indexOf(message), 1);
    const channel = this.channels.get(channelId);
    if (channel !== undefined && isThread(channel))
      channel.message_count = Math.max(0, (channel.message_count ?? 1) - 1);
    return message;
  }

  threads(): FakeThread[] {
    return [...this.channels.values()].filter(isThread);
  }

  textChannels(): FakeChannel[] {
    // A DM channel (direct-messages.ts) is no server's.
    return [...this.channels.values()].filter((channel) => !isThread(channel) && channel.guild_id !== undefined);
  }
}

/** Whether the channel is a DM channel (direct-messages.ts stores them among the channels, with no server). */
export function isDirectMessageChannel(channel: { type: number } | undefined): boolean {
  return channel?.type === ChannelType.DM;
}

export function isThread(channel: FakeChannel): channel is FakeThread {
  return (
    channel.type === ChannelType.PublicThread ||
    channel.type === ChannelType.PrivateThread ||
    channel.type === ChannelType.AnnouncementThread
  );
}
