/**
 * The application's registered commands, per scope (global, or one guild), stored as Discord
 * returns them: a bulk overwrite keeps the id of a command with the same name and type, gives it a
 * new version only when its definition changed, fills in Discord's defaults and leaves out the
 * empty and false fields Discord does not send.
 */
import type { FakeRegisteredCommand, FakeRegisteredOption } from './interaction-types.ts';
import type { World } from './world.ts';

/** A command as the bot sends it in a bulk overwrite (the body passed the spec check). */
export interface CommandRequest {
  id?: string | null;
  name: string;
  name_localizations?: Record<string, string> | null;
  description?: string | null;
  description_localizations?: Record<string, string> | null;
  options?: OptionRequest[] | null;
  default_member_permissions?: string | number | null;
  dm_permission?: boolean | null;
  contexts?: number[] | null;
  integration_types?: number[] | null;
  nsfw?: boolean | null;
  type?: number | null;
}

export interface OptionRequest {
  type: number;
  name: string;
  name_localizations?: Record<string, string> | null;
  description: string;
  description_localizations?: Record<string, string> | null;
  required?: boolean | null;
  autocomplete?: boolean | null;
  choices?: { name: string; value: string | number; name_localizations?: Record<string, string> | null }[] | null;
  options?: OptionRequest[] | null;
  channel_types?: number[] | null;
  min_value?: number | null;
  max_value?: number | null;
  min_length?: number | null;
  max_length?: number | null;
}

export const commandTypes = { chatInput: 1, user: 2, message: 3 } as const;
export const optionTypes = {
  subcommand: 1,
  group: 2,
  string: 3,
  integer: 4,
  boolean: 5,
  user: 6,
  channel: 7,
  role: 8,
  mentionable: 9,
  number: 10,
  attachment: 11,
} as const;

/** Where commands live: 'global', or a guild id. */
type ScopeKey = string;

export class CommandStore {
  private readonly byScope = new Map<ScopeKey, FakeRegisteredCommand[]>();

  constructor(private readonly world: World) {}

  /** The commands of a scope, as GET returns them (copies). */
  list(guildId?: string): FakeRegisteredCommand[] {
    return structuredClone(this.byScope.get(guildId ?? 'global') ?? []);
  }

  /** Replaces a scope's commands (PUT); returns them as Discord answers. */
  overwrite(guildId: string | undefined, requests: CommandRequest[]): FakeRegisteredCommand[] {
    const previous = this.byScope.get(guildId ?? 'global') ?? [];
    const next = requests.map((request) => {
      const type = request.type ?? commandTypes.chatInput;
      const old = previous.find((command) =>
        request.id ? command.id === request.id : command.name === request.name && command.type === type,
      );
      const id = old?.id ?? this.world.nextId();
      const command = registeredCommand(request, {
        id,
        applicationId: this.world.botUser.id,
        version: old?.version ?? this.world.nextId(),
        guildId,
      });
      if (old !== undefined && !sameDefinition(old, command)) command.version = this.world.nextId();
      return command;
    });
    this.byScope.set(guildId ?? 'global', next);
    return structuredClone(next);
  }

  /** Deletes one command of a scope (DELETE); false when the scope has no command with that id. */
  remove(guildId: string | undefined, id: string): boolean {
    const scope = this.byScope.get(guildId ?? 'global') ?? [];
    const kept = scope.filter((command) => command.id !== id);
    this.byScope.set(guildId ?? 'global', kept);
    return kept.length < scope.length;
  }

  /** The command a user in the guild would pick by name and type: the guild's, else the global one. */
  find(guildId: string, name: string, type: number): FakeRegisteredCommand | undefined {
    const match = (command: FakeRegisteredCommand) => command.name === name && command.type === type;
    return this.byScope.get(guildId)?.find(match) ?? this.byScope.get('global')?.find(match);
  }
}

/** The command as Discord stores and returns it. */
function registeredCommand(
  request: CommandRequest,
  ids: { id: string; applicationId: string; version: string; guildId: string | undefined },
): FakeRegisteredCommand {
  const type = request.type ?? commandTypes.chatInput;
  const command: Omit<FakeRegisteredCommand, 'nsfw'> = {
    id: ids.id,
    application_id: ids.applicationId,
    version: ids.version,
    default_member_permissions:
      request.default_member_permissions === undefined || request.default_member_permissions === null
        ? null
        : String(request.default_member_permissions),
    type,
    name: request.name,
    description: type === commandTypes.chatInput ? (request.description ?? '') : '',
  };
  if (request.name_localizations) command.name_localizations = request.name_localizations;
  if (request.description_localizations) command.description_localizations = request.description_localizations;
  if (ids.guildId !== undefined) {
    command.guild_id = ids.guildId;
  } else {
    // Global commands only; Discord drops these three from guild commands.
    command.dm_permission = request.dm_permission ?? (request.contexts ? request.contexts.includes(1) : true);
    command.contexts = request.contexts ?? null;
    command.integration_types = request.integration_types ?? [0];
  }
  const options = (request.options ?? []).map(registeredOption);
  if (type === commandTypes.chatInput && options.length > 0) command.options = options;
  return { ...command, nsfw: request.nsfw ?? false };
}

function registeredOption(request: OptionRequest): FakeRegisteredOption {
  const option: FakeRegisteredOption = { type: request.type, name: request.name, description: request.description };
  if (request.name_localizations) option.name_localizations = request.name_localizations;
  if (request.description_localizations) option.description_localizations = request.description_localizations;
  if (request.required === true) option.required = true;
  if (request.autocomplete === true) option.autocomplete = true;
  if (request.choices && request.choices.length > 0) {
    option.choices = request.choices.map(({ name, value, name_localizations }) =>
      name_localizations ? { name, value, name_localizations } : { name, value },
    );
  }
  const nested = (request.options ?? []).map(registeredOption);
  if (nested.length > 0) option.options = nested;
  if (request.channel_types && request.channel_types.length > 0) option.channel_types = request.channel_types;
  for (const key of ['min_value', 'max_value', 'min_length', 'max_length'] as const) {
    const value = request[key];
    if (value !== undefined && value !== null) option[key] = value;
  }
  return option;
}

function sameDefinition(a: FakeRegisteredCommand, b: FakeRegisteredCommand): boolean {
  const strip = ({ version: _version, ...rest }: FakeRegisteredCommand) => JSON.stringify(rest);
  return strip(a) === strip(b);
}
