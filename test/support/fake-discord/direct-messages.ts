/**
 * Direct messages in the fake, as Discord has them: a DM channel (type 1, no server) per person,
 * opened by `POST /users/@me/channels`; a user's DM dispatched as MESSAGE_CREATE with no `guild_id`,
 * no `member` and `channel_type` 1 (to shard 0 only, with the DirectMessages intent: gateway.ts); people who share no
 * server with the bot (a user with no member); and `GET /guilds/{guild}/members/{user}`, which says
 * whether someone is a member.
 * https://discord.com/developers/docs/resources/user#create-dm,
 * https://discord.com/developers/docs/resources/guild#get-guild-member,
 * https://discord.com/developers/docs/events/gateway-events#message-create
 */
import { type APIDMChannel, type APIUser, ChannelType, GatewayDispatchEvents } from 'discord.js';
import type { FakeGateway } from './gateway.ts';
import { DiscordHttpError, invalidFormBody } from './http-errors.ts';
import { userMessage } from './messages.ts';
import type { Route } from './routes.ts';
import type { FakeAuthor } from './shared-types.ts';
import type { FakeChannel, FakeMessage } from './types.ts';
import { isDirectMessageChannel, type World } from './world.ts';

const unknownMember = () => new DiscordHttpError(404, { message: 'Unknown Member', code: 10007 });
const unknownUser = () => new DiscordHttpError(404, { message: 'Unknown User', code: 10013 });

/** The person's DM channel with the bot, opened on first use (Discord returns the same one each time). */
export function directMessageChannel(world: World, user: APIUser): APIDMChannel {
  const existing = [...world.channels.values()].find(
    (channel) =>
      isDirectMessageChannel(channel) && (channel as unknown as APIDMChannel).recipients?.[0]?.id === user.id,
  );
  if (existing) return existing as unknown as APIDMChannel;
  const channel: APIDMChannel = {
    id: world.nextId(),
    type: ChannelType.DM,
    name: null,
    last_message_id: null,
    recipients: [user],
  };
  // Among the world's channels, so that the message routes serve it as they serve any channel.
  world.channels.set(channel.id, channel as unknown as FakeChannel);
  return channel;
}

/** Members of the fake's other servers (`fake.addGuild`), by server: the seeded one's are `world.members`. */
const otherMembers = new WeakMap<World, Map<string, Set<string>>>();

/**
 * A person who is no member of the seeded server: of no server at all, or only of `memberOf` (a
 * server added with `fake.addGuild`, on another shard, say).
 */
export function addStranger(world: World, input: { id: string; username: string; memberOf?: string }): APIUser {
  const user = world.addUser({ id: input.id, username: input.username }, []);
  world.members.delete(user.id);
  if (input.memberOf !== undefined) {
    const servers = otherMembers.get(world) ?? new Map<string, Set<string>>();
    otherMembers.set(world, servers.set(input.memberOf, (servers.get(input.memberOf) ?? new Set()).add(user.id)));
  }
  return user;
}

/** The member `userId` of server `guildId`, as REST returns one, if they are one. */
function memberOf(world: World, guildId: string, userId: string): unknown {
  const user = world.users.get(userId);
  if (guildId === world.guildId) {
    const member = world.members.get(userId);
    return member && { ...member, user };
  }
  if (!otherMembers.get(world)?.get(guildId)?.has(userId)) return undefined;
  return {
    user,
    nick: null,
    roles: [],
    joined_at: '2024-01-01T00:00:00.000000+00:00',
    deaf: false,
    mute: false,
    flags: 0,
  };
}

/** `fake.userSaysInDm`: the person writes to the bot in their DM channel. */
export async function userSaysInDm(
  world: World,
  gateway: FakeGateway,
  baseUrl: string,
  input: { author: FakeAuthor; content: string },
): Promise<FakeMessage> {
  const user = world.author(input.author);
  const channel = directMessageChannel(world, user);
  const message = userMessage(world, baseUrl, { channelId: channel.id, author: input.author, content: input.content });
  world.storeMessage(message);
  // The event names the channel's type: discord.js makes the (uncached, partial) DM channel from it
  // (discord.js src/client/actions/MessageCreate.js reads `channel_type`).
  await gateway.dispatch(GatewayDispatchEvents.MessageCreate, { ...message, channel_type: ChannelType.DM });
  return message;
}

/**
 * Where an interaction used in the bot's DM comes from: `user` instead of `member`, the DM channel,
 * no server, context 1 (BOT_DM), and a server install's owner "0" (used outside a server).
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object
 */
export function directMessageInteractionPlace(channel: FakeChannel, user: APIUser): Record<string, unknown> {
  return {
    user,
    channel: {
      id: channel.id,
      type: ChannelType.DM,
      last_message_id: channel.last_message_id ?? null,
      flags: 0,
      recipients: [user],
    },
    authorizing_integration_owners: { '0': '0' },
    context: 1,
  };
}

/** The REST routes of DMs and of membership. */
export function directMessageRoutes(world: World): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/users/@me/channels',
      handle({ body }) {
        const recipient = (body as { recipient_id?: string }).recipient_id;
        if (typeof recipient !== 'string') throw invalidFormBody({ recipient_id: 'This field is required' });
        const user = world.users.get(recipient);
        if (!user) throw unknownUser();
        return { body: directMessageChannel(world, user) };
      },
    },
    {
      method: 'GET',
      pattern: '/guilds/:guildId/members/:userId',
      handle({ params }) {
        const member = memberOf(world, params.guildId!, params.userId!);
        if (!member) throw unknownMember();
        return { body: member };
      },
    },
  ];
}
