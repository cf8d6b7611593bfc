/**
 * Buttons and select menus: a user presses a component of a message the bot sent (an interaction
 * response, ephemeral or not), the fake dispatches INTERACTION_CREATE of type 3 (MESSAGE_COMPONENT)
 * with the message, and takes the bot's answer: a new message (4), or the message updated in
 * place (7), or a deferred update (6) edited later through the webhook.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-type
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-interaction-callback-type
 */
import { ComponentType, GatewayDispatchEvents } from 'discord.js';
import { partialChannel } from './command-options.ts';
import { type InteractionRecord, newInteractionRecord } from './interaction-record.ts';
import type { RunCommandServices } from './interactions.ts';
import type { FakeInteraction, FakeInteractionReply, PressComponentInput } from './interaction-types.ts';
import { editBotMessage, type CreateMessageBody } from './messages.ts';
import { restMessage } from './payloads.ts';
import { memberPermissions } from './permissions.ts';
import type { FakeMessage } from './types.ts';

interface RawComponent {
  type: number;
  custom_id?: string;
  disabled?: boolean;
  options?: { value: string }[];
  components?: RawComponent[];
}

const flatten = (components: readonly RawComponent[]): RawComponent[] =>
  components.flatMap((component) => [component, ...flatten(component.components ?? [])]);

/** The pressed component, checked as Discord's client would let a user press it. */
function pressedComponent(message: FakeMessage, input: PressComponentInput): RawComponent {
  const fail = (why: string) => new Error(`fake Discord: userPressesComponent ${input.customId}: ${why}`);
  const component = flatten((message.components ?? []) as RawComponent[]).find(
    (candidate) => candidate.custom_id === input.customId,
  );
  if (component === undefined) throw fail(`message ${message.id} has no component of that custom id`);
  if (component.disabled) throw fail('it is disabled');
  if (component.type === ComponentType.StringSelect) {
    if (!input.values?.length) throw fail('a select menu is answered with values');
    for (const value of input.values)
      if (!component.options?.some((option) => option.value === value)) throw fail(`the menu has no option ${value}`);
  }
  return component;
}

/** `fake.userPressesComponent`: dispatches the press, returns its handle. */
export async function pressComponent(
  services: RunCommandServices,
  input: PressComponentInput,
  handleOf: (record: InteractionRecord) => FakeInteraction,
): Promise<FakeInteraction> {
  const { world, gateway, interactions } = services;
  const owner = interactions.get(input.on.id);
  if (owner === undefined) throw new Error(`fake Discord: no interaction ${input.on.id}`);
  const messageId = input.messageId ?? owner.replies.at(-1)?.messageId;
  const message = [owner.original, ...owner.followups].find((candidate) => candidate?.id === messageId);
  if (message === undefined) throw new Error(`fake Discord: interaction ${owner.id} has no message ${messageId}`);
  const component = pressedComponent(message, input);
  const user = world.author(input.author);
  const permissions = memberPermissions(world, user.id);
  const record = newInteractionRecord(world, interactions.deadlineMs, (id, token) => ({
    ...owner,
    userId: user.id,
    payload: {
      ...owner.payload,
      id,
      token,
      type: 3,
      data: {
        custom_id: input.customId,
        component_type: component.type,
        ...(input.values ? { values: input.values } : {}),
      },
      message: restMessage(message),
      member: { ...world.members.get(user.id)!, user, permissions: permissions.toString() },
      channel: partialChannel(world, world.channels.get(owner.channelId)!, permissions),
    },
    // The webhook's @original of a component interaction is the message the component is on.
    original: message,
    autocomplete: false,
    modal: undefined,
    component: input.customId,
    fullName: `${owner.fullName} (${input.customId})`,
  }));
  interactions.add(record);
  await gateway.dispatch(GatewayDispatchEvents.InteractionCreate, record.payload);
  return handleOf(record);
}

/**
 * Callback 6 (deferred update: nothing shows yet) or 7 (the component's message updated in place).
 * Returns the reply to record, or undefined for a deferral.
 */
export function updateComponentMessage(
  services: Pick<RunCommandServices, 'world'>,
  record: InteractionRecord,
  callback: { type: number; data?: CreateMessageBody | null },
): Omit<FakeInteractionReply, 'ephemeral' | 'files'> | undefined {
  record.acknowledged = true;
  if (callback.type === 6) {
    record.deferred = true;
    return undefined;
  }
  const message = record.original!;
  editBotMessage(services.world, message, callback.data ?? {});
  return {
    kind: 'callback',
    type: 7,
    content: message.content,
    ...(message.components?.length ? { components: message.components } : {}),
    messageId: message.id,
  };
}
