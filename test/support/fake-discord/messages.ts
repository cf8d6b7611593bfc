/**
 * Builds messages as Discord would store and dispatch them: a user's (from a test) and the bot's
 * (from a REST body), with mentions resolved the way Discord resolves them, and attachments served
 * by the fake itself.
 */
import {
  MessageFlags,
  MessageType,
  PermissionFlagsBits,
  type APIAttachment,
  type APIUser,
  type APIUserWithMember,
} from 'discord.js';
import { emptyMessage, invalidFormBody } from './http-errors.ts';
import { memberWithoutUser, restMessage } from './payloads.ts';
import type { FakeMessage, UserMessageInput } from './types.ts';
import { discordTimestamp, isDirectMessageChannel, type World } from './world.ts';

/** A file uploaded with a bot message (a multipart `files[n]` part). */
export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  body: Buffer;
}

/** The fields of a create-message body that the fake acts on (the body passed the spec check). */
export interface CreateMessageBody {
  content?: string | null;
  tts?: boolean | null;
  embeds?: unknown[] | null;
  components?: unknown[] | null;
  sticker_ids?: string[] | null;
  poll?: unknown;
  flags?: number | null;
  nonce?: string | number | null;
  enforce_nonce?: boolean | null;
  attachments?: { id: string | number; filename?: string; description?: string }[] | null;
  allowed_mentions?: {
    parse?: string[] | null;
    users?: string[] | null;
    roles?: string[] | null;
    replied_user?: boolean | null;
  } | null;
  message_reference?: {
    message_id: string;
    channel_id?: string | null;
    fail_if_not_exists?: boolean | null;
    type?: number | null;
  } | null;
}

/** Flags a bot may set when it creates a message; Discord ignores the others. */
const settableFlags = MessageFlags.SuppressEmbeds | MessageFlags.SuppressNotifications;

/** A user's message, as `fake.userSays` posts it. */
export function userMessage(world: World, fileBaseUrl: string, input: UserMessageInput): FakeMessage {
  world.requireChannel(input.channelId);
  const author = world.author(input.author);
  const message = baseMessage(world, input.channelId, author, input.content);
  message.mentions = (input.mentions ?? []).map((id) => mentionOf(world, id));
  message.mention_roles = input.mentionRoles ?? [];
  message.mention_everyone = input.mentionEveryone ?? false;
  message.attachments = (input.attachments ?? []).map((file) => {
    const attachment = serveAttachment(
      world,
      fileBaseUrl,
      input.channelId,
      file.filename,
      file.contentType,
      Buffer.from(file.body),
    );
    if (file.gzipCutTo !== undefined) world.files.get(new URL(attachment.url).pathname)!.gzipCutTo = file.gzipCutTo;
    return file.reportedSize === undefined ? attachment : { ...attachment, size: file.reportedSize };
  });
  if (input.embeds) message.embeds = input.embeds;
  if (input.replyTo !== undefined) makeReply(message, world.requireMessage(input.channelId, input.replyTo));
  if (input.forwardOf) makeForward(message, world.requireMessage(input.forwardOf.channelId, input.forwardOf.messageId));
  return message;
}

/**
 * A forward: no content of its own, the forwarded message's content in its snapshot, with the
 * fields of the spec's MinimalContentMessageResponse.
 * https://discord.com/developers/docs/resources/message#message-snapshot-object
 */
function makeForward(message: FakeMessage, forwarded: FakeMessage): void {
  message.content = '';
  message.message_reference = {
    type: 1,
    channel_id: forwarded.channel_id,
    message_id: forwarded.id,
    ...(forwarded.guild_id ? { guild_id: forwarded.guild_id } : {}),
  };
  message.message_snapshots = [
    {
      message: {
        type: forwarded.type,
        content: forwarded.content,
        embeds: forwarded.embeds,
        attachments: forwarded.attachments,
        timestamp: forwarded.timestamp,
        edited_timestamp: forwarded.edited_timestamp,
        flags: forwarded.flags,
        mentions: forwarded.mentions,
        mention_roles: forwarded.mention_roles,
        components: forwarded.components,
      },
    },
  ];
}

/** The bot's message from a create-message body. Throws Discord's 400s for what Discord refuses. */
export function botMessage(
  world: World,
  fileBaseUrl: string,
  channelId: string,
  body: CreateMessageBody,
  files: UploadedFile[],
): FakeMessage {
  const content = body.content ?? '';
  const hasSomething =
    content !== '' ||
    (body.embeds ?? []).length > 0 ||
    files.length > 0 ||
    (body.components ?? []).length > 0 ||
    (body.sticker_ids ?? []).length > 0 ||
    (body.poll !== undefined && body.poll !== null);
  if (!hasSomething) throw emptyMessage();

  let repliedTo: FakeMessage | undefined;
  const reference = body.message_reference;
  if (reference) {
    repliedTo = world.messagesByChannel
      .get(reference.channel_id ?? channelId)
      ?.find((candidate) => candidate.id === reference.message_id);
    if (repliedTo === undefined && reference.fail_if_not_exists !== false)
      throw invalidFormBody({ message_reference: 'Unknown message' });
  }

  const message = baseMessage(world, channelId, world.botUser, content);
  message.attachments = files.map((file) => {
    const index = file.field.match(/^files\[(\d+)\]$/)?.[1];
    const described = body.attachments?.find((attachment) => String(attachment.id) === index);
    const attachment = serveAttachment(
      world,
      fileBaseUrl,
      channelId,
      described?.filename ?? file.filename,
      file.contentType,
      file.body,
    );
    return described?.description ? { ...attachment, description: described.description } : attachment;
  });
  message.tts = body.tts ?? false;
  message.embeds = (body.embeds ?? []).map((embed) => ({
    type: 'rich',
    ...(embed as object),
  })) as FakeMessage['embeds'];
  message.components = (body.components ?? []) as FakeMessage['components'];
  message.flags = (body.flags ?? 0) & settableFlags;
  if (body.nonce !== undefined && body.nonce !== null) message.nonce = body.nonce;
  if (repliedTo !== undefined) makeReply(message, repliedTo);
  resolveMentions(world, message, body.allowed_mentions ?? undefined, repliedTo);
  return message;
}

/** The fields of an edit-message body that the fake acts on. */
export type EditMessageBody = Pick<
  CreateMessageBody,
  'content' | 'embeds' | 'components' | 'flags' | 'allowed_mentions'
>;

/** Applies the bot's edit to its message (Discord re-resolves mentions; an edit never pings). */
export function editBotMessage(world: World, message: FakeMessage, body: EditMessageBody): void {
  if (body.content !== undefined) message.content = body.content ?? '';
  if (body.embeds !== undefined)
    message.embeds = (body.embeds ?? []).map((embed) => ({
      type: 'rich',
      ...(embed as object),
    })) as FakeMessage['embeds'];
  if (body.components !== undefined) message.components = (body.components ?? []) as FakeMessage['components'];
  if (body.flags !== undefined && body.flags !== null) {
    message.flags = (((message.flags ?? 0) & ~MessageFlags.SuppressEmbeds) |
      (body.flags & MessageFlags.SuppressEmbeds)) as MessageFlags;
  }
  message.edited_timestamp = discordTimestamp();
  const repliedTo = message.referenced_message ?? undefined;
  resolveMentions(world, message, body.allowed_mentions ?? undefined, repliedTo as FakeMessage | undefined);
}

/**
 * Fills `mentions`, `mention_roles` and `mention_everyone` from the content as Discord does: without
 * `allowed_mentions` everything in the text pings (and a reply pings its author); with it, only
 * what it allows. @everyone also needs the MentionEveryone permission.
 */
function resolveMentions(
  world: World,
  message: FakeMessage,
  allowed: CreateMessageBody['allowed_mentions'] | undefined,
  repliedTo: FakeMessage | undefined,
): void {
  const parse = allowed ? (allowed.parse ?? []) : ['users', 'roles', 'everyone'];
  const userIds = [...message.content.matchAll(/<@!?(\d{17,20})>/g)].map((match) => match[1]!);
  const roleIds = [...message.content.matchAll(/<@&(\d{17,20})>/g)].map((match) => match[1]!);
  const pingedUsers = userIds.filter(
    (id) => world.users.has(id) && (parse.includes('users') || (allowed?.users ?? []).includes(id)),
  );
  const repliedUser = allowed ? (allowed.replied_user ?? false) : true;
  if (repliedTo !== undefined && repliedUser) pingedUsers.push(repliedTo.author.id);
  message.mentions = [...new Set(pingedUsers)].map((id) => mentionOf(world, id));
  message.mention_roles = [...new Set(roleIds)].filter(
    (id) => world.roles.has(id) && (parse.includes('roles') || (allowed?.roles ?? []).includes(id)),
  );
  message.mention_everyone =
    /@(everyone|here)/.test(message.content) &&
    parse.includes('everyone') &&
    world.botMay(PermissionFlagsBits.MentionEveryone);
}

/** A plain message's fields, as Discord fills them; callers set what differs. */
export function baseMessage(world: World, channelId: string, author: APIUser, content: string): FakeMessage {
  // A DM has no server: no guild_id and no member, in the gateway's event as in REST.
  const inServer =
    !isDirectMessageChannel(world.channels.get(channelId)) && world.absentPlaces.get(channelId)?.guildId !== null;
  const member = inServer ? memberWithoutUser(world, author.id) : undefined;
  return {
    id: world.nextId(),
    channel_id: channelId,
    ...(inServer ? { guild_id: world.guildOf(channelId) } : {}),
    author,
    ...(member === undefined ? {} : { member }),
    content,
    timestamp: discordTimestamp(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    components: [],
    pinned: false,
    type: MessageType.Default,
    flags: 0 as MessageFlags,
  };
}

function makeReply(message: FakeMessage, repliedTo: FakeMessage): void {
  message.type = MessageType.Reply;
  message.message_reference = {
    type: 0,
    channel_id: repliedTo.channel_id,
    guild_id: repliedTo.guild_id,
    message_id: repliedTo.id,
  };
  // Discord embeds the replied-to message once, without its own referenced message.
  const { referenced_message: _nested, ...referenced } = restMessage(repliedTo) as FakeMessage;
  message.referenced_message = referenced;
}

function mentionOf(world: World, userId: string): APIUserWithMember {
  const user = world.users.get(userId) ?? world.author({ id: userId, username: `user-${userId}` });
  const member = memberWithoutUser(world, userId);
  return member === undefined ? { ...user } : { ...user, member };
}

/** Stores a file for the fake to serve and returns the attachment that points at it. */
export function serveAttachment(
  world: World,
  fileBaseUrl: string,
  channelId: string,
  filename: string,
  contentType: string,
  body: Buffer,
): APIAttachment {
  const id = world.nextId();
  const path = `/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`;
  world.files.set(path, { contentType, body });
  return {
    id,
    filename,
    size: body.length,
    url: `${fileBaseUrl}${path}`,
    proxy_url: `${fileBaseUrl}${path}`,
    content_type: contentType,
  };
}
