/**
 * What INTERACTION_CREATE's payload says of every interaction beside its own data: the fields all
 * carry, and where in a server it happens and who did it, as a guild-installed app receives them.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-structure
 */
import type { APIUser } from 'discord.js';
import { partialChannel } from './command-options.ts';
import { memberPermissions } from './permissions.ts';
import type { FakeChannel } from './types.ts';
import type { World } from './world.ts';

/** The fields every interaction's payload carries, wherever it happens. */
export function interactionEnvelope(
  world: World,
  interaction: { id: string; token: string; channelId: string },
): Record<string, unknown> {
  return {
    id: interaction.id,
    application_id: world.botUser.id,
    channel_id: interaction.channelId,
    token: interaction.token,
    version: 1,
    app_permissions: memberPermissions(world, world.botUser.id).toString(),
    locale: 'en-US',
    entitlements: [],
    attachment_size_limit: 10 * 1024 * 1024,
  };
}

/** An interaction in a server's channel: the server, the channel as the member sees it, the member. */
export function guildInteractionPlace(
  world: World,
  place: { guildId: string; channel: FakeChannel; user: APIUser; permissions: bigint; ownInstall?: boolean },
): Record<string, unknown> {
  const { guildId, channel, user, permissions } = place;
  // A key for each install that authorised it: the person's own too when they installed the app
  // and the command is installable to users (the caller checks that).
  // https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-authorizing-integration-owners-object
  const owners = place.ownInstall ? { '0': guildId, '1': user.id } : { '0': guildId };
  return {
    guild: { id: guildId, locale: 'en-US', features: [] },
    guild_id: guildId,
    channel: partialChannel(world, channel, permissions),
    member: { ...world.members.get(user.id)!, user, permissions: permissions.toString() },
    guild_locale: 'en-US',
    // Discord's value for a guild-installed app used in a guild: the guild install, by guild id.
    authorizing_integration_owners: owners,
    context: 0,
  };
}
