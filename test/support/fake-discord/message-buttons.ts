/**
 * Buttons on a message the bot posted (not an interaction's answer, and not routed to a command): a
 * user presses one, and the fake dispatches INTERACTION_CREATE of type 3 (MESSAGE_COMPONENT) as
 * Discord does, with the message and the button's custom id; the bot may update that message (7).
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-message-component-data-structure
 */
import { GatewayDispatchEvents } from 'discord.js';
import { guildInteractionPlace, interactionEnvelope } from './interaction-payload.ts';
import { newInteractionRecord } from './interaction-record.ts';
import type { FakeInteraction, FakeRegisteredCommand, PressMessageButtonInput } from './interaction-types.ts';
import { interactionHandle, type RunCommandServices } from './interactions.ts';
import { restMessage } from './payloads.ts';
import { memberPermissions } from './permissions.ts';

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
  const button = input.forged
    ? { type: 2, custom_id: input.customId }
    : buttons.find((each) => each.type === 2 && each.custom_id === input.customId);
  if (button === undefined)
    throw new Error(`fake Discord: message ${input.messageId} has no button "${input.customId}" (now)`);
  if (button.disabled) throw new Error(`fake Discord: the button "${input.customId}" is disabled`);
  const channel = world.channels.get(input.channelId)!;
  const user = world.author(input.author);
  const permissions = memberPermissions(world, user.id);
  const guildId = world.guildOf(channel.id);
  const record = newInteractionRecord(world, interactions.deadlineMs, (id, token) => ({
    applicationId: world.botUser.id,
    channelId: channel.id,
    // Not a command: the record's command only names the interaction in messages and problems.
    command: { type: 1, name: `button ${input.customId}` } as FakeRegisteredCommand,
    fullName: `button ${input.customId}`,
    userId: user.id,
    payload: {
      ...interactionEnvelope(world, { id, token, channelId: channel.id }),
      type: 3,
      data: { custom_id: input.customId, component_type: 2 },
      message: restMessage(message),
      ...guildInteractionPlace(world, { guildId, channel, user, permissions }),
    },
    autocomplete: false,
    componentMessageId: message.id,
  }));
  interactions.add(record);
  await gateway.dispatch(GatewayDispatchEvents.InteractionCreate, record.payload);
  return interactionHandle(record, services.waitFor);
}
