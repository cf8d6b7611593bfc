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

/** A person the bot shares no server with: a user, and a member of no server. */
export function addStranger(world: World, input: { id: string; username: string }): APIUser {
  const user = world.addUser({ id: input.id, username: input.username }, []);
  world.members.delete(user.id);
  return user;
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
        // The fake's members are the seeded server's; another server of the fake has none but the bot.
        const member = params.guildId === world.guildId ? world.members.get(params.userId!) : undefined;
        if (!member) throw unknownMember();
        return { body: { ...member, user: world.users.get(params.userId!) } };
      },
    },
  ];
}
