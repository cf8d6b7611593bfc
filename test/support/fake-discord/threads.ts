/**
 * Thread life cycle, shared by the REST routes (the bot) and the test API (users): create (from a
 * message or not), update (archive, lock, rename) and delete, each with the dispatches Discord sends.
 */
import {
  ChannelType,
  GatewayDispatchEvents,
  MessageFlags,
  MessageType,
  type ChannelFlags,
  type ThreadAutoArchiveDuration,
} from 'discord.js';
import type { FakeGateway } from './gateway.ts';
import { baseMessage } from './messages.ts';
import { invalidFormBody, threadExists, wrongChannelType } from './http-errors.ts';
import { botThreadMember } from './payloads.ts';
import type { FakeMessage, FakeThread } from './types.ts';
import { discordTimestamp, isThread, noFlags, type World } from './world.ts';

export interface NewThread {
  parentId: string;
  name: string;
  ownerId: string;
  /** Public (11) or private (12); a thread from a message is always public. */
  type: ChannelType.PublicThread | ChannelType.PrivateThread;
  fromMessageId?: string;
  autoArchiveDuration?: number | null;
  rateLimitPerUser?: number | null;
}

/** Creates the thread, stores it and dispatches THREAD_CREATE (and the parent's system message). */
export async function createThread(world: World, gateway: FakeGateway, spec: NewThread): Promise<FakeThread> {
  const parent = world.requireChannel(spec.parentId);
  if (parent.type !== ChannelType.GuildText) throw wrongChannelType();
  let starter: FakeMessage | undefined;
  if (spec.fromMessageId !== undefined) {
    starter = world.requireMessage(parent.id, spec.fromMessageId);
    if (starter.thread !== undefined) throw threadExists();
  }
  const now = discordTimestamp();
  const thread: FakeThread = {
    // A thread started from a message has that message's id, as on Discord.
    id: starter?.id ?? world.nextId(),
    type: starter ? ChannelType.PublicThread : spec.type,
    guild_id: parent.guild_id,
    parent_id: parent.id,
    owner_id: spec.ownerId,
    name: spec.name,
    last_message_id: null,
    rate_limit_per_user: spec.rateLimitPerUser ?? 0,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    flags: noFlags as ChannelFlags,
    thread_metadata: {
      archived: false,
      auto_archive_duration: (spec.autoArchiveDuration ??
        parent.default_auto_archive_duration ??
        1440) as ThreadAutoArchiveDuration,
      archive_timestamp: now,
      locked: false,
      create_timestamp: now,
      ...(spec.type === ChannelType.PrivateThread && !starter ? { invitable: true } : {}),
    },
  };
  world.channels.set(thread.id, thread);
  world.messagesByChannel.set(thread.id, []);
  const member = spec.ownerId === world.botUser.id ? { member: botThreadMember(world, thread.id) } : {};
  await gateway.dispatch(GatewayDispatchEvents.ThreadCreate, { ...thread, ...member, newly_created: true });

  if (starter !== undefined) {
    starter.thread = thread;
    starter.flags = ((starter.flags ?? 0) | MessageFlags.HasThread) as MessageFlags;
  } else if (thread.type === ChannelType.PublicThread) {
    await postThreadCreatedMessage(world, gateway, thread);
  }
  return thread;
}

/** A post a user starts in a forum: its title and tags (by name). */
export interface NewForumPost {
  forumId: string;
  ownerId: string;
  title: string;
  tags?: readonly string[];
}

/**
 * A forum post's thread: public, in the forum, with its tags (THREAD_CREATE). Its first message,
 * which has the thread's id as on Discord, is the caller's to post.
 * https://discord.com/developers/docs/resources/channel#start-thread-in-forum-or-media-channel
 */
export async function createForumPost(world: World, gateway: FakeGateway, post: NewForumPost): Promise<FakeThread> {
  const forum = world.requireChannel(post.forumId);
  if (forum.type !== ChannelType.GuildForum) throw wrongChannelType();
  const tags = post.tags ?? [];
  const known = forum.available_tags ?? [];
  const applied = tags.map((name) => known.find((tag) => tag.name === name)?.id ?? `${name}?`);
  const now = discordTimestamp();
  const thread: FakeThread = {
    id: world.nextId(),
    type: ChannelType.PublicThread,
    guild_id: forum.guild_id,
    parent_id: forum.id,
    owner_id: post.ownerId,
    name: post.title,
    last_message_id: null,
    rate_limit_per_user: 0,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    flags: noFlags as ChannelFlags,
    applied_tags: applied,
    thread_metadata: {
      archived: false,
      auto_archive_duration: 1440 as ThreadAutoArchiveDuration,
      archive_timestamp: now,
      locked: false,
      create_timestamp: now,
    },
  };
  world.channels.set(thread.id, thread);
  world.messagesByChannel.set(thread.id, []);
  await gateway.dispatch(GatewayDispatchEvents.ThreadCreate, { ...thread, newly_created: true });
  return thread;
}

/** Discord's "started a thread" system message (type 18) in the parent channel. */
async function postThreadCreatedMessage(world: World, gateway: FakeGateway, thread: FakeThread): Promise<void> {
  const author = world.users.get(thread.owner_id!)!;
  const message: FakeMessage = {
    ...baseMessage(world, thread.parent_id, author, thread.name),
    type: MessageType.ThreadCreated,
    message_reference: { type: 0, channel_id: thread.id, guild_id: world.guildId },
  };
  world.storeMessage(message);
  await gateway.dispatch(GatewayDispatchEvents.MessageCreate, message);
}

export interface ThreadChanges {
  name?: string | null;
  archived?: boolean | null;
  locked?: boolean | null;
  auto_archive_duration?: number | null;
  rate_limit_per_user?: number | null;
  invitable?: boolean | null;
  /** A forum post's tags (at most 5, each one of its forum's). */
  applied_tags?: string[] | null;
}

/** Applies a PATCH to a thread and dispatches THREAD_UPDATE. */
export async function updateThread(
  gateway: FakeGateway,
  thread: FakeThread,
  changes: ThreadChanges,
): Promise<FakeThread> {
  const metadata = thread.thread_metadata!;
  if (changes.name !== undefined && changes.name !== null) thread.name = changes.name;
  if (changes.rate_limit_per_user !== undefined && changes.rate_limit_per_user !== null)
    thread.rate_limit_per_user = changes.rate_limit_per_user;
  if (changes.auto_archive_duration !== undefined && changes.auto_archive_duration !== null) {
    metadata.auto_archive_duration = changes.auto_archive_duration as ThreadAutoArchiveDuration;
  }
  if (changes.locked !== undefined && changes.locked !== null) metadata.locked = changes.locked;
  if (changes.applied_tags !== undefined && changes.applied_tags !== null) {
    // https://discord.com/developers/docs/resources/channel#modify-channel-json-params-thread (at most 5)
    if (changes.applied_tags.length > 5) throw invalidFormBody({ applied_tags: 'Must be 5 or fewer in length.' });
    thread.applied_tags = changes.applied_tags;
  }
  if (changes.invitable !== undefined && changes.invitable !== null && thread.type === ChannelType.PrivateThread)
    metadata.invitable = changes.invitable;
  if (changes.archived !== undefined && changes.archived !== null && changes.archived !== metadata.archived) {
    metadata.archived = changes.archived;
    metadata.archive_timestamp = discordTimestamp();
  }
  await gateway.dispatch(GatewayDispatchEvents.ThreadUpdate, thread);
  return thread;
}

/** Removes a thread and its messages and dispatches THREAD_DELETE. */
export async function deleteThread(world: World, gateway: FakeGateway, threadId: string): Promise<FakeThread> {
  const thread = world.requireChannel(threadId);
  if (!isThread(thread)) throw wrongChannelType();
  world.channels.delete(threadId);
  world.messagesByChannel.delete(threadId);
  await gateway.dispatch(GatewayDispatchEvents.ThreadDelete, {
    id: thread.id,
    guild_id: thread.guild_id,
    parent_id: thread.parent_id,
    type: thread.type,
  });
  return thread;
}
