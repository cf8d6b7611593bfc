/**
 * `fake.userPressesButton`: a member presses a button on one of the bot's messages: an
 * INTERACTION_CREATE of type 3 (MESSAGE_COMPONENT) with the button's custom id and the message, as
 * Discord sends it. The interaction is answered as a command's is (same callbacks, same deadline).
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-message-component-data-structure
 */
import { randomBytes } from 'node:crypto';
import { ComponentType, GatewayDispatchEvents } from 'discord.js';
import { commandTypes } from './application-commands.ts';
import { partialChannel } from './command-options.ts';
import { interactionHandle, type InteractionRecord, type RunCommandServices } from './interactions.ts';
import type { FakeInteraction, PressButtonInput } from './interaction-types.ts';
import { restMessage } from './payloads.ts';
import { memberPermissions } from './permissions.ts';

export async function pressButton(services: RunCommandServices, input: PressButtonInput): Promise<FakeInteraction> {
  const { world, gateway, commands, interactions } = services;
  const fail = (message: string) => new Error(`fake Discord: userPressesButton ${input.customId}: ${message}`);
  const channel = world.channels.get(input.channelId);
  const message = world.messagesByChannel.get(input.channelId)?.find((candidate) => candidate.id === input.messageId);
  if (!channel || !message) throw fail(`no message ${input.messageId} in channel ${input.channelId}`);
  const rows = (message.components ?? []) as { components?: { type: number; custom_id?: string }[] }[];
  const button = rows
    .flatMap((row) => row.components ?? [])
    .find((component) => component.type === ComponentType.Button && component.custom_id === input.customId);
  if (!button) throw fail('the message has no such button');
  // The command the bot answers it as: the one named by the custom id's prefix (as the bot routes it).
  const command = commands.find(world.guildId, input.customId.split(':')[0] ?? '', commandTypes.chatInput);
  if (!command) throw fail('no command named by its prefix is registered');
  const user = world.author(input.author);
  const permissions = memberPermissions(world, user.id);
  const id = world.nextId();
  const token = Buffer.from(`interaction:${id}:${randomBytes(48).toString('base64url')}`).toString('base64url');
  const payload: Record<string, unknown> = {
    id,
    application_id: world.botUser.id,
    type: 3,
    data: { custom_id: input.customId, component_type: ComponentType.Button },
    message: restMessage(message),
    guild: { id: world.guildId, locale: 'en-US', features: [] },
    guild_id: world.guildId,
    channel: partialChannel(world, channel, permissions),
    channel_id: channel.id,
    member: { ...world.members.get(user.id)!, user, permissions: permissions.toString() },
    token,
    version: 1,
    app_permissions: memberPermissions(world, world.botUser.id).toString(),
    locale: 'en-US',
    guild_locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { '0': world.guildId },
    context: 0,
    attachment_size_limit: 10 * 1024 * 1024,
  };
  const now = performance.now();
  const record: InteractionRecord = {
    id,
    token,
    applicationId: world.botUser.id,
    channelId: channel.id,
    command,
    fullName: `${command.name} (button)`,
    userId: user.id,
    payload,
    deadlineAt: now + interactions.deadlineMs,
    expiresAt: now + 15 * 60_000,
    acknowledged: false,
    deferred: false,
    followups: [],
    replies: [],
    missedDeadline: false,
    autocomplete: false,
  };
  interactions.add(record);
  await gateway.dispatch(GatewayDispatchEvents.InteractionCreate, payload);
  return interactionHandle(record, services.waitFor);
}
