/**
 * Buttons on a message the bot posted (not an interaction's answer, and not routed to a command): a
 * user presses one, and the fake dispatches INTERACTION_CREATE of type 3 (MESSAGE_COMPONENT) as
 * Discord does, with the message and the button's custom id; the bot may update that message (7).
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-message-component-data-structure
 */
import { randomBytes } from 'node:crypto';
import { GatewayDispatchEvents } from 'discord.js';
import { partialChannel } from './command-options.ts';
import type { FakeInteraction, FakeRegisteredCommand, PressMessageButtonInput } from './interaction-types.ts';
import { interactionHandle, type InteractionRecord, type RunCommandServices } from './interactions.ts';
import { restMessage } from './payloads.ts';
import { memberPermissions } from './permissions.ts';

const tokenLifetimeMs = 15 * 60_000;

/** `fake.userPressesMessageButton`: checks the button is on the message and enabled, dispatches, returns the handle. */
export async function pressMessageButton(
  services: RunCommandServices,
  input: PressMessageButtonInput,
): Promise<FakeInteraction> {
  const { world, gateway, interactions } = services;
  const message = world.requireMessage(input.channelId, input.messageId);
  const buttons = (message.components ?? []).flatMap(
    (row) => (row as { components?: { type: number; custom_id?: string; disabled?: boolean }[] }).components ?? [],
  );
  const button = buttons.find((each) => each.type === 2 && each.custom_id === input.customId);
  if (button === undefined)
    throw new Error(`fake Discord: message ${input.messageId} has no button "${input.customId}" (now)`);
  if (button.disabled) throw new Error(`fake Discord: the button "${input.customId}" is disabled`);
  const channel = world.channels.get(input.channelId)!;
  const user = world.author(input.author);
  const permissions = memberPermissions(world, user.id);
  const id = world.nextId();
  const token = Buffer.from(`interaction:${id}:${randomBytes(48).toString('base64url')}`).toString('base64url');
  const guildId = world.guildOf(channel.id);
  const payload: Record<string, unknown> = {
    id,
    application_id: world.botUser.id,
    type: 3,
    data: { custom_id: input.customId, component_type: 2 },
    message: restMessage(message),
    guild: { id: guildId, locale: 'en-US', features: [] },
    guild_id: guildId,
    channel: partialChannel(world, channel, permissions),
    channel_id: channel.id,
    member: { ...world.members.get(user.id)!, user, permissions: permissions.toString() },
    token,
    version: 1,
    app_permissions: memberPermissions(world, world.botUser.id).toString(),
    locale: 'en-US',
    guild_locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { '0': guildId },
    context: 0,
    attachment_size_limit: 10 * 1024 * 1024,
  };
  const now = performance.now();
  // Not a command: the record's command only names the interaction in messages and problems.
  const command = { type: 1, name: `button ${input.customId}` } as FakeRegisteredCommand;
  const record: InteractionRecord = {
    id,
    token,
    applicationId: world.botUser.id,
    channelId: channel.id,
    command,
    fullName: `button ${input.customId}`,
    userId: user.id,
    payload,
    deadlineAt: now + interactions.deadlineMs,
    expiresAt: now + tokenLifetimeMs,
    acknowledged: false,
    deferred: false,
    followups: [],
    replies: [],
    missedDeadline: false,
    autocomplete: false,
    componentMessageId: message.id,
  };
  interactions.add(record);
  await gateway.dispatch(GatewayDispatchEvents.InteractionCreate, payload);
  return interactionHandle(record, services.waitFor);
}
