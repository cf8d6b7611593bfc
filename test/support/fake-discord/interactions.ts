/**
 * Interactions: a user runs a registered command, the fake dispatches INTERACTION_CREATE as Discord
 * does and keeps what the bot answers. Discord's clock: the callback within 3 s (configurable), the
 * token for follow-ups and edits for 15 minutes.
 */
import { GatewayDispatchEvents, MessageFlags, PermissionFlagsBits } from 'discord.js';
import { commandTypes, type CommandStore } from './application-commands.ts';
import { chatInputOptions, mayUseCommand, type InteractionDataOption, type ResolvedData } from './command-options.ts';
import { directMessageInteractionPlace } from './direct-messages.ts';
import type { FakeGateway } from './gateway.ts';
import { invalidWebhookToken, unknownInteraction, unknownWebhook } from './http-errors.ts';
import { guildInteractionPlace, interactionEnvelope } from './interaction-payload.ts';
import { type InteractionRecord, newInteractionRecord } from './interaction-record.ts';
import type { FakeInteraction, FakeRegisteredCommand, RunCommandInput } from './interaction-types.ts';
import { userInstalledInteractionPlace } from './user-installs.ts';
import { restMessage } from './payloads.ts';
import { allows, defaultEveryonePermissions, memberPermissions } from './permissions.ts';
import type { WaitForOptions } from './types.ts';
import { isDirectMessageChannel, type World } from './world.ts';
import type { AbsentPlace } from './shared-types.ts';

export class InteractionStore {
  private readonly records = new Map<string, InteractionRecord>();

  constructor(private readonly options: { deadlineMs: number; problem(message: string): void }) {}

  get deadlineMs(): number {
    return this.options.deadlineMs;
  }

  get(id: string): InteractionRecord | undefined {
    return this.records.get(id);
  }

  add(record: InteractionRecord): void {
    this.records.set(record.id, record);
    record.timer = setTimeout(() => {
      if (!record.acknowledged) this.missDeadline(record);
    }, this.options.deadlineMs);
    record.timer.unref();
  }

  /** Records, once, that the bot let the callback deadline pass (the user sees "The application did not respond"). */
  missDeadline(record: InteractionRecord): void {
    if (record.missedDeadline) return;
    record.missedDeadline = true;
    this.options.problem(
      `interaction ${record.id} (/${record.fullName}): the bot did not answer within ${this.options.deadlineMs / 1000} s ` +
        '(reply or deferReply first; Discord answers a later callback with 404 Unknown interaction)',
    );
  }

  /** The interaction of a callback, or Discord's 404 Unknown interaction. */
  forCallback(id: string, token: string): InteractionRecord {
    const record = this.records.get(id);
    if (record === undefined || record.token !== token) throw unknownInteraction();
    return record;
  }

  /** The interaction behind a webhook (follow-ups, edits), or Discord's webhook errors. */
  forWebhook(applicationId: string, token: string): InteractionRecord {
    const record = [...this.records.values()].find((candidate) => candidate.token === token);
    if (record === undefined || record.applicationId !== applicationId) throw unknownWebhook();
    if (performance.now() > record.expiresAt) throw invalidWebhookToken();
    // Before the callback the interaction has no webhook yet.
    if (!record.acknowledged) throw unknownWebhook();
    return record;
  }

  /** Whether the interaction of this token has a deferred reply still loading (for the mention policy). */
  isLoadingOriginal(token: string): boolean {
    const original = [...this.records.values()].find((record) => record.token === token)?.original;
    return original !== undefined && ((original.flags ?? 0) & MessageFlags.Loading) !== 0;
  }

  close(): void {
    for (const record of this.records.values()) clearTimeout(record.timer);
  }
}

export interface RunCommandServices {
  world: World;
  /** The origin the fake serves files from (an attachment option's). */
  fileBaseUrl: string;
  gateway: FakeGateway;
  commands: CommandStore;
  interactions: InteractionStore;
  waitFor: <T>(check: () => T | undefined | null | false, options: WaitForOptions) => Promise<T>;
}

/** `fake.userRunsCommand`: checks what Discord's client checks, dispatches, returns the handle. */
export async function runCommand(services: RunCommandServices, input: RunCommandInput): Promise<FakeInteraction> {
  const { world, gateway, commands, interactions } = services;
  const type = input.type === 'message' ? commandTypes.message : commandTypes.chatInput;
  const fail = (message: string) => new Error(`fake Discord: userRunsCommand ${input.name}: ${message}`);
  const absent = world.absentPlaces.get(input.channelId);
  // Where the server did not add the bot, its guild commands do not exist: only global ones.
  const command = commands.find(absent ? 'global' : world.guildId, input.name, type);
  if (command === undefined)
    throw fail(`no ${input.type ?? 'chat-input'} command of that name is registered (globally or for the guild)`);
  const channel = absent ? undefined : world.channels.get(input.channelId);
  if (absent === undefined && channel === undefined) throw fail(`no channel ${input.channelId}`);
  const user = world.author(input.author);
  const permissions = memberPermissions(world, user.id);
  const inDm = isDirectMessageChannel(channel);
  if (absent) checkUserInstallable(command, absent, fail);
  else if (inDm) {
    // In the bot's DM: no server permissions apply; the command must be offered there (context 1, BOT_DM).
    if (!command.contexts?.includes(1)) throw fail('the command is not available in DMs with the bot (contexts)');
  } else {
    if (!allows(permissions, PermissionFlagsBits.UseApplicationCommands))
      throw fail(`${user.username} lacks UseApplicationCommands`);
    if (!mayUseCommand(command, permissions))
      throw fail(
        `${user.username} lacks default_member_permissions ${command.default_member_permissions}; Discord hides the command`,
      );
    if (command.contexts?.includes(0) === false || command.integration_types?.includes(0) === false)
      throw fail('the command is not available in guilds (contexts / integration_types)');
  }

  let data: { options?: InteractionDataOption[]; resolved?: ResolvedData; target_id?: string };
  let fullName = command.name;
  const channelId = input.channelId;
  if (type === commandTypes.message) {
    if (input.targetMessageId === undefined) throw fail('a message command needs targetMessageId');
    const target = world.messagesByChannel.get(channelId)?.find((message) => message.id === input.targetMessageId);
    if (target === undefined) throw fail(`no message ${input.targetMessageId} in channel ${channelId}`);
    data = { target_id: target.id, resolved: { messages: { [target.id]: restMessage(target) } } };
  } else {
    const { options, resolved } = chatInputOptions(world, command, input, permissions, services.fileBaseUrl);
    fullName = [command.name, input.subcommandGroup, input.subcommand].filter(Boolean).join(' ');
    data = { ...(options.length > 0 ? { options } : {}), ...(Object.keys(resolved).length > 0 ? { resolved } : {}) };
  }

  const record = newInteractionRecord(world, interactions.deadlineMs, (id, token) => ({
    applicationId: world.botUser.id,
    channelId,
    command,
    fullName,
    userId: user.id,
    ...(data.target_id ? { targetMessageId: data.target_id } : {}),
    payload: {
      ...interactionEnvelope(world, { id, token, channelId }),
      type: input.focused === undefined ? 2 : 4,
      data: {
        id: command.id,
        name: command.name,
        type: command.type,
        ...data,
        ...(command.guild_id ? { guild_id: command.guild_id } : {}),
      },
      ...(absent
        ? userInstalledInteractionPlace(absent, user)
        : inDm
          ? directMessageInteractionPlace(channel!, user)
          : guildInteractionPlace(world, {
              guildId: world.guildId,
              channel: channel!,
              user,
              permissions,
              ownInstall: input.ownInstall === true && command.integration_types?.includes(1) === true,
            })),
    },
    autocomplete: input.focused !== undefined,
  }));
  interactions.add(record);
  await gateway.dispatch(GatewayDispatchEvents.InteractionCreate, record.payload);
  return interactionHandle(record, services.waitFor);
}

/**
 * Where the server did not add the bot (or in a group DM), Discord offers a command only when it is
 * global, installable to a user (`integration_types` holds 1, USER_INSTALL) and used in one of its
 * `contexts` (0 GUILD, 2 PRIVATE_CHANNEL).
 * https://discord.com/developers/docs/interactions/application-commands#contexts
 */
function checkUserInstallable(command: FakeRegisteredCommand, place: AbsentPlace, fail: (message: string) => Error) {
  if (!command.integration_types?.includes(1))
    throw fail('the command cannot be installed to a user (integration_types lacks 1, USER_INSTALL)');
  const context = place.guildId === null ? 2 : 0;
  if (!command.contexts?.includes(context)) throw fail(`the command is not offered in interaction context ${context}`);
  // default_member_permissions "apply to that command in all servers", a server that did not add
  // the app included; the person there has what @everyone has (userInstalledInteractionPlace).
  // https://discord.com/developers/docs/change-log#upcoming-application-command-permission-changes
  if (place.guildId !== null && !mayUseCommand(command, defaultEveryonePermissions))
    throw fail(`default_member_permissions ${command.default_member_permissions}: Discord hides the command there`);
}

/**
 * `fake.userSubmitsModal`: the user fills in the form the bot answered `opened` with and submits it:
 * an INTERACTION_CREATE of type 5 (MODAL_SUBMIT) with each text input's value, as Discord sends it.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-modal-submit-data-structure
 */
export async function submitModal(
  services: RunCommandServices,
  opened: FakeInteraction,
  values: Record<string, string>,
): Promise<FakeInteraction> {
  const { world, gateway, interactions } = services;
  const original = interactions.get(opened.id);
  if (original?.modal === undefined) throw new Error(`fake Discord: interaction ${opened.id} opened no form`);
  const modal = original.modal;
  const inputs = modal.components.flatMap((row) => row.components);
  for (const name of Object.keys(values))
    if (!inputs.some((input) => input.custom_id === name))
      throw new Error(`fake Discord: the form has no text input "${name}"`);
  for (const input of inputs) {
    const value = values[input.custom_id] ?? '';
    if (input.required !== false && value === '') throw new Error(`fake Discord: "${input.custom_id}" is required`);
    if (input.max_length !== undefined && value.length > input.max_length)
      throw new Error(`fake Discord: "${input.custom_id}" takes at most ${input.max_length} characters`);
  }
  const record = newInteractionRecord(world, interactions.deadlineMs, (id, token) => ({
    ...original,
    payload: {
      ...original.payload,
      id,
      token,
      type: 5,
      data: {
        custom_id: modal.custom_id,
        components: modal.components.map((row) => ({
          type: 1,
          components: row.components.map((input) => ({
            type: 4,
            custom_id: input.custom_id,
            value: values[input.custom_id] ?? '',
          })),
        })),
      },
    },
    original: undefined,
    autocomplete: false,
    modal: undefined,
    modalSubmit: modal.custom_id,
    fullName: `${original.fullName} (form)`,
  }));
  interactions.add(record);
  await gateway.dispatch(GatewayDispatchEvents.InteractionCreate, record.payload);
  return interactionHandle(record, services.waitFor);
}

export function interactionHandle(record: InteractionRecord, waitFor: RunCommandServices['waitFor']): FakeInteraction {
  return {
    id: record.id,
    token: record.token,
    payload: record.payload,
    get acknowledged() {
      return record.acknowledged;
    },
    get deferred() {
      return record.deferred;
    },
    replies: () => structuredClone(record.replies),
    waitForReply: (predicate, options = {}) =>
      waitFor(
        () =>
          record.replies.find(
            (reply) =>
              !(reply.kind === 'callback' && reply.type === 5) && (predicate === undefined || predicate(reply)),
          ),
        { what: `a reply to /${record.fullName}${predicate ? ` matching ${predicate.toString()}` : ''}`, ...options },
      ),
    waitForModal: (options = {}) =>
      waitFor(() => structuredClone(record.modal), { what: `a form answering /${record.fullName}`, ...options }),
    waitForChoices: (options = {}) =>
      waitFor(() => structuredClone(record.choices), { what: `suggestions for /${record.fullName}`, ...options }),
  };
}
