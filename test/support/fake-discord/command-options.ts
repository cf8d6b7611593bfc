/**
 * A slash command's options as Discord sends them in an interaction: nested under the subcommand
 * (and group), each typed as the registered option is, with `resolved` users, members, roles and
 * channels. What Discord's client would refuse to send throws, as a mistake of the test.
 */
import { ChannelType, PermissionFlagsBits } from 'discord.js';
import { optionTypes } from './application-commands.ts';
import type {
  FakeOptionValue,
  FakeRegisteredCommand,
  FakeRegisteredOption,
  RunCommandInput,
} from './interaction-types.ts';
import { serveAttachment } from './messages.ts';
import { memberWithoutUser } from './payloads.ts';
import { memberPermissions } from './permissions.ts';
import type { FakeChannel } from './types.ts';
import { isThread, type World } from './world.ts';

/** One entry of `data.options`. */
export interface InteractionDataOption {
  type: number;
  name: string;
  value?: FakeOptionValue;
  options?: InteractionDataOption[];
  /** In an autocomplete interaction: the option being typed. */
  focused?: true;
}

/** `data.resolved`: what the ids among the options stand for. */
export interface ResolvedData {
  users?: Record<string, unknown>;
  members?: Record<string, unknown>;
  roles?: Record<string, unknown>;
  channels?: Record<string, unknown>;
  messages?: Record<string, unknown>;
  attachments?: Record<string, unknown>;
}

/**
 * `invoker` is the invoking member's permissions (resolved channels carry them); `fileBaseUrl` the
 * origin the fake serves an attachment option's file from.
 */
export function chatInputOptions(
  world: World,
  command: FakeRegisteredCommand,
  input: RunCommandInput,
  invoker: bigint,
  fileBaseUrl: string,
): { options: InteractionDataOption[]; resolved: ResolvedData } {
  const fail = (message: string) => new Error(`fake Discord: /${command.name}: ${message}`);
  const top = command.options ?? [];
  const resolved: ResolvedData = {};
  const focused = input.focused;
  const pick = (options: FakeRegisteredOption[], type: number, name: string | undefined, what: string) => {
    const found = options.find((option) => option.type === type && option.name === name);
    if (found === undefined)
      throw fail(`no ${what} "${name}"; it has ${options.map((option) => option.name).join(', ') || 'none'}`);
    return found;
  };

  if (input.subcommandGroup !== undefined) {
    const group = pick(top, optionTypes.group, input.subcommandGroup, 'subcommand group');
    const sub = pick(group.options ?? [], optionTypes.subcommand, input.subcommand, 'subcommand');
    const values = leafOptions(world, sub.options ?? [], input.options ?? {}, {
      resolved,
      invoker,
      fileBaseUrl,
      fail,
      ...(focused === undefined ? {} : { focused }),
    });
    return {
      options: [
        {
          type: optionTypes.group,
          name: group.name,
          options: [{ type: optionTypes.subcommand, name: sub.name, options: values }],
        },
      ],
      resolved,
    };
  }
  if (top.some((option) => option.type === optionTypes.group))
    throw fail('give subcommandGroup (and subcommand): the command has groups');
  if (input.subcommand !== undefined || top.some((option) => option.type === optionTypes.subcommand)) {
    const sub = pick(top, optionTypes.subcommand, input.subcommand, 'subcommand');
    const values = leafOptions(world, sub.options ?? [], input.options ?? {}, {
      resolved,
      invoker,
      fileBaseUrl,
      fail,
      ...(focused === undefined ? {} : { focused }),
    });
    return { options: [{ type: optionTypes.subcommand, name: sub.name, options: values }], resolved };
  }
  return {
    options: leafOptions(world, top, input.options ?? {}, {
      resolved,
      invoker,
      fileBaseUrl,
      fail,
      ...(focused === undefined ? {} : { focused }),
    }),
    resolved,
  };
}

interface Resolving {
  resolved: ResolvedData;
  invoker: bigint;
  fileBaseUrl: string;
  /** The option being typed, for an autocomplete interaction. */
  focused?: string;
  fail: (message: string) => Error;
}

function leafOptions(
  world: World,
  registered: FakeRegisteredOption[],
  given: Record<string, FakeOptionValue>,
  resolving: Resolving,
): InteractionDataOption[] {
  const { fail } = resolving;
  for (const name of Object.keys(given)) {
    if (!registered.some((option) => option.name === name))
      throw fail(`no option "${name}"; it has ${registered.map((option) => option.name).join(', ') || 'none'}`);
  }
  const values: InteractionDataOption[] = [];
  for (const option of registered) {
    const value = given[option.name];
    if (value === undefined) {
      // An autocomplete interaction carries what has been typed so far.
      if (option.required && resolving.focused === undefined)
        throw fail(`the required option "${option.name}" is missing (Discord's client would not send the command)`);
      continue;
    }
    if (option.name === resolving.focused) {
      if (option.autocomplete !== true)
        throw fail(`option "${option.name}" is not registered with autocomplete: Discord sends no autocomplete for it`);
      values.push({ type: option.type, name: option.name, value, focused: true });
      continue;
    }
    if (option.type === optionTypes.attachment) {
      values.push({ type: option.type, name: option.name, value: attachmentOption(world, value, resolving) });
      continue;
    }
    checkValue(world, option, value, { ...resolving, fail: (message) => fail(`option "${option.name}": ${message}`) });
    values.push({ type: option.type, name: option.name, value });
  }
  return values;
}

function checkValue(
  world: World,
  option: FakeRegisteredOption,
  value: FakeOptionValue,
  { resolved, invoker, fail }: Resolving,
): void {
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw fail(`${JSON.stringify(value)} is not ${what}`);
  };
  switch (option.type) {
    case optionTypes.string:
      expect(typeof value === 'string', 'a string');
      expect(
        (value as string).length >= (option.min_length ?? 0) && (value as string).length <= (option.max_length ?? 6000),
        'of an allowed length',
      );
      break;
    case optionTypes.integer:
    case optionTypes.number:
      expect(
        typeof value === 'number' &&
          (option.type === optionTypes.number ? Number.isFinite(value) : Number.isInteger(value)),
        option.type === optionTypes.number ? 'a number' : 'an integer',
      );
      expect(
        (value as number) >= (option.min_value ?? -Infinity) && (value as number) <= (option.max_value ?? Infinity),
        'within min_value..max_value',
      );
      break;
    case optionTypes.boolean:
      expect(typeof value === 'boolean', 'a boolean');
      break;
    case optionTypes.user:
      expect(typeof value === 'string' && world.users.has(value), 'the id of a known user');
      resolveUser(world, value as string, resolved);
      break;
    case optionTypes.role:
      expect(typeof value === 'string' && world.roles.has(value), 'the id of a role');
      (resolved.roles ??= {})[value as string] = world.roles.get(value as string);
      break;
    case optionTypes.mentionable:
      expect(
        typeof value === 'string' && (world.users.has(value) || world.roles.has(value)),
        'the id of a user or a role',
      );
      if (world.users.has(value as string)) resolveUser(world, value as string, resolved);
      else (resolved.roles ??= {})[value as string] = world.roles.get(value as string);
      break;
    case optionTypes.channel: {
      const channel = typeof value === 'string' ? world.channels.get(value) : undefined;
      expect(channel !== undefined, 'the id of a channel');
      expect(
        option.channel_types === undefined || option.channel_types.includes(channel!.type),
        `a channel of the types ${option.channel_types?.join(', ')}`,
      );
      (resolved.channels ??= {})[channel!.id] = partialChannel(world, channel!, invoker);
      break;
    }
    default:
      throw fail(`option type ${option.type} is not modelled by the fake`);
  }
  if (option.choices !== undefined)
    expect(
      option.choices.some((choice) => choice.value === value),
      `one of the choices ${option.choices.map((choice) => JSON.stringify(choice.value)).join(', ')}`,
    );
}

/**
 * An attachment option: the file uploaded (served by the fake, as Discord serves it from its CDN)
 * and its id sent, the attachment itself in `resolved.attachments`.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-resolved-data-structure
 */
function attachmentOption(world: World, value: FakeOptionValue, { resolved, fileBaseUrl, fail }: Resolving): string {
  if (typeof value !== 'object') throw fail(`an attachment option takes a file, not ${JSON.stringify(value)}`);
  const attachment = serveAttachment(
    world,
    fileBaseUrl,
    'options',
    value.filename,
    value.contentType,
    Buffer.from(value.body),
  );
  (resolved.attachments ??= {})[attachment.id] =
    value.reportedSize === undefined ? attachment : { ...attachment, size: value.reportedSize };
  return attachment.id;
}

function resolveUser(world: World, userId: string, resolved: ResolvedData): void {
  (resolved.users ??= {})[userId] = world.users.get(userId);
  const member = memberWithoutUser(world, userId);
  if (member === undefined) return;
  // Resolved members are partial: no user, deaf nor mute, but their permissions.
  const { deaf: _deaf, mute: _mute, ...partial } = member;
  (resolved.members ??= {})[userId] = { ...partial, permissions: memberPermissions(world, userId).toString() };
}

/**
 * A channel as interactions carry it (`channel`, `resolved.channels`): Discord's partial channel
 * with the invoking member's `permissions` in it.
 */
export function partialChannel(world: World, channel: FakeChannel, permissions: bigint) {
  const thread = isThread(channel) ? { thread_metadata: channel.thread_metadata } : {};
  const text =
    channel.type === ChannelType.GuildText ? { topic: channel.topic ?? null, position: channel.position } : {};
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    guild_id: world.guildId,
    parent_id: channel.parent_id ?? null,
    last_message_id: channel.last_message_id ?? null,
    nsfw: 'nsfw' in channel ? (channel.nsfw ?? false) : false,
    flags: channel.flags ?? 0,
    rate_limit_per_user: channel.rate_limit_per_user ?? 0,
    permissions: permissions.toString(),
    ...text,
    ...thread,
  };
}

/** Whether a member may see and use a command (its `default_member_permissions`; 0 = admins only). */
export function mayUseCommand(command: FakeRegisteredCommand, permissions: bigint): boolean {
  if ((permissions & PermissionFlagsBits.Administrator) !== 0n) return true;
  if (command.default_member_permissions === null) return true;
  const required = BigInt(command.default_member_permissions);
  return required !== 0n && (permissions & required) === required;
}
