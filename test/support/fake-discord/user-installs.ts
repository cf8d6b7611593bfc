/**
 * Places the bot is not in, where a person uses the app they installed to their own account (a
 * user install): a server that did not add the bot, or a group DM. Discord tells the bot nothing of
 * them over the gateway, refuses its REST calls there (403 Missing Access, 50001), and sends their
 * interactions with the user install as the only authorizing owner ("1": the user's id), and a
 * `context` of 0 (GUILD) or 2 (PRIVATE_CHANNEL).
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-authorizing-integration-owners-object
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-context-types
 */
import { ChannelType, PermissionFlagsBits, type APIUser } from 'discord.js';
import { DiscordHttpError } from './http-errors.ts';
import type { InteractionRecord } from './interaction-record.ts';
import { baseMessage } from './messages.ts';
import { defaultEveryonePermissions } from './permissions.ts';
import type { FakeMessage } from './types.ts';
import { discordTimestamp, type World } from './world.ts';
import type { AbsentPlace } from './shared-types.ts';

/** What an app may do in a group DM or a DM between people, as Discord reports it. */
const groupDmAppPermissions =
  PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.MentionEveryone;

/** How many follow-ups an interaction authorised by a user install alone may have. */
const userInstallFollowUps = 5;

/** Discord's answer to the sixth follow-up (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json). */
export const tooManyFollowUps = () =>
  new DiscordHttpError(400, {
    message: 'This interaction has hit the maximum number of follow up messages',
    code: 40094,
  });

/** Adds a place the bot is not in: a server's channel (`server`), or a group DM. */
export function addAbsentPlace(world: World, kind: 'server' | 'group-dm'): AbsentPlace {
  const place = {
    channelId: world.nextId(),
    guildId: kind === 'server' ? world.nextId() : null,
    name: kind === 'server' ? 'elsewhere' : 'friends',
  };
  world.absentPlaces.set(place.channelId, place);
  world.messagesByChannel.set(place.channelId, []);
  return place;
}

/** A person's message in a place the bot is not in: stored, and sent to nobody (no gateway there). */
export function messageInAbsentPlace(world: World, place: AbsentPlace, author: APIUser, content: string): FakeMessage {
  // Its server (if any) is not the seeded one: no member of it to add.
  const { member: _member, ...message } = baseMessage(world, place.channelId, author, content);
  world.messagesByChannel.get(place.channelId)!.push(message);
  return message;
}

/**
 * Where a user-installed interaction comes from: in a server, its id, a partial guild, the channel and
 * the member (the server did not add the app: the app's permissions are what @everyone may do);
 * in a group DM, `user` and the channel. Either way the user install alone authorised it.
 */
export function userInstalledInteractionPlace(place: AbsentPlace, user: APIUser): Record<string, unknown> {
  const owners = { authorizing_integration_owners: { '1': user.id } };
  if (place.guildId === null)
    return {
      user,
      channel: { id: place.channelId, type: ChannelType.GroupDM, name: place.name, flags: 0, recipients: [user] },
      // "ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE permissions for (G)DMs with other users":
      // https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-structure
      app_permissions: groupDmAppPermissions.toString(),
      ...owners,
      context: 2,
    };
  const permissions = defaultEveryonePermissions.toString();
  return {
    guild: { id: place.guildId, locale: 'en-US', features: [] },
    guild_id: place.guildId,
    guild_locale: 'en-US',
    channel: {
      id: place.channelId,
      type: ChannelType.GuildText,
      name: place.name,
      guild_id: place.guildId,
      parent_id: null,
      nsfw: false,
      flags: 0,
      rate_limit_per_user: 0,
      permissions,
    },
    member: {
      user,
      roles: [],
      nick: null,
      avatar: null,
      banner: null,
      joined_at: discordTimestamp(new Date('2024-01-01T00:00:00Z')),
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
      permissions,
    },
    app_permissions: permissions,
    ...owners,
    context: 0,
  };
}

/** Whether the user install alone authorised the interaction (the server did not add the app). */
export function authorisedByUserInstallOnly(record: InteractionRecord): boolean {
  const owners = (record.payload.authorizing_integration_owners ?? {}) as Record<string, string>;
  return owners['1'] !== undefined && owners['0'] === undefined;
}

/** Refuses a follow-up past Discord's limit for an interaction a user install alone authorised. */
export function checkFollowUpLimit(record: InteractionRecord): void {
  if (authorisedByUserInstallOnly(record) && record.followups.length >= userInstallFollowUps) throw tooManyFollowUps();
}
