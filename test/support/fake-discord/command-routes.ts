/**
 * REST routes for application commands: GET, PUT (bulk overwrite) and DELETE (one command) of the
 * global commands and of a guild's. The spec checks the body's shape (rest.ts); this file adds the rules Discord enforces
 * that the spec does not encode, with Discord's error codes.
 */
import { invalidFormBody, missingAccess, unknownCommand } from './http-errors.ts';
import {
  commandTypes,
  optionTypes,
  type CommandRequest,
  type CommandStore,
  type OptionRequest,
} from './application-commands.ts';
import type { FakeServices, Route } from './routes.ts';

/** Discord's pattern for slash command and option names (and they must be lower case). */
const chatInputName = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** How many commands of each type one scope may hold. */
const limits: Record<number, number> = {
  [commandTypes.chatInput]: 100,
  [commandTypes.user]: 15,
  [commandTypes.message]: 15,
};

export function commandRoutes({ world, problem }: FakeServices, store: CommandStore): Route[] {
  function requireApplication(applicationId: string): void {
    if (applicationId === world.botUser.id) return;
    problem(
      `REST: commands for application ${applicationId}; the bot's application id is ${world.botUser.id} (client.application.id)`,
    );
    throw missingAccess();
  }
  function requireGuild(guildId: string): void {
    // Discord answers so for a guild the bot is not in (or was invited to without applications.commands).
    if (guildId !== world.guildId) throw missingAccess();
  }
  function overwrite(method: string, path: string, guildId: string | undefined, body: unknown) {
    const requests = (body ?? []) as CommandRequest[];
    const errors = commandErrors(requests);
    if (Object.keys(errors).length > 0) {
      for (const [field, message] of Object.entries(errors)) problem(`REST ${method} ${path}: ${field}: ${message}`);
      throw invalidFormBody(errors);
    }
    return { body: store.overwrite(guildId, requests) };
  }

  function remove(guildId: string | undefined, commandId: string) {
    if (!store.remove(guildId, commandId)) throw unknownCommand();
    return { status: 204 };
  }

  return [
    {
      method: 'DELETE',
      pattern: '/applications/:applicationId/commands/:commandId',
      handle({ params }) {
        requireApplication(params.applicationId!);
        return remove(undefined, params.commandId!);
      },
    },
    {
      method: 'DELETE',
      pattern: '/applications/:applicationId/guilds/:guildId/commands/:commandId',
      handle({ params }) {
        requireApplication(params.applicationId!);
        requireGuild(params.guildId!);
        return remove(params.guildId!, params.commandId!);
      },
    },
    {
      method: 'GET',
      pattern: '/applications/:applicationId/commands',
      handle({ params }) {
        requireApplication(params.applicationId!);
        return { body: store.list() };
      },
    },
    {
      method: 'PUT',
      pattern: '/applications/:applicationId/commands',
      schema: 'BulkOverwriteApplicationCommandsRequest',
      handle({ params, body }) {
        requireApplication(params.applicationId!);
        return overwrite('PUT', `/applications/${params.applicationId}/commands`, undefined, body);
      },
    },
    {
      method: 'GET',
      pattern: '/applications/:applicationId/guilds/:guildId/commands',
      handle({ params }) {
        requireApplication(params.applicationId!);
        requireGuild(params.guildId!);
        return { body: store.list(params.guildId!) };
      },
    },
    {
      method: 'PUT',
      pattern: '/applications/:applicationId/guilds/:guildId/commands',
      schema: 'BulkOverwriteApplicationCommandsRequest',
      handle({ params, body }) {
        requireApplication(params.applicationId!);
        requireGuild(params.guildId!);
        return overwrite(
          'PUT',
          `/applications/${params.applicationId}/guilds/${params.guildId}/commands`,
          params.guildId!,
          body,
        );
      },
    },
  ];
}

/** Discord's 400s for a bulk overwrite that passes the spec, by field path ("0.options.1.name"). */
export function commandErrors(commands: CommandRequest[]): Record<string, string> {
  const errors: Record<string, string> = {};
  const seen = new Set<string>();
  const counts = new Map<number, number>();
  commands.forEach((command, index) => {
    const type = command.type ?? commandTypes.chatInput;
    counts.set(type, (counts.get(type) ?? 0) + 1);
    const key = `${type}:${command.name}`;
    if (seen.has(key))
      errors[`${index}.name`] = 'APPLICATION_COMMANDS_DUPLICATE_NAME: Application command names must be unique';
    seen.add(key);
    if (type !== commandTypes.chatInput) return;
    if (!isChatInputName(command.name))
      errors[`${index}.name`] =
        `APPLICATION_COMMAND_INVALID_NAME: Command name "${command.name}" is invalid (lower case, ${chatInputName.source})`;
    if (!command.description)
      errors[`${index}.description`] =
        'BASE_TYPE_REQUIRED: This field is required (a slash command needs a description)';
    optionErrors(command.options ?? [], `${index}.options`, errors);
  });
  for (const [type, count] of counts) {
    const limit = limits[type];
    if (limit !== undefined && count > limit)
      errors._body = `APPLICATION_COMMANDS_TOO_MANY: at most ${limit} commands of type ${type}, got ${count}`;
  }
  return errors;
}

function optionErrors(options: OptionRequest[], path: string, errors: Record<string, string>): void {
  const names = new Set<string>();
  const isSub = (option: OptionRequest) => option.type === optionTypes.subcommand || option.type === optionTypes.group;
  if (options.some(isSub) && !options.every(isSub)) {
    errors[path] =
      'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID: subcommands and groups cannot be mixed with other options';
  }
  let optionalSeen = false;
  options.forEach((option, index) => {
    const at = `${path}.${index}`;
    if (!isChatInputName(option.name))
      errors[`${at}.name`] = `APPLICATION_COMMAND_INVALID_NAME: Option name "${option.name}" is invalid`;
    if (names.has(option.name))
      errors[`${at}.name`] = 'APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS: Option names must be unique';
    names.add(option.name);
    if (isSub(option)) {
      if (option.required === true)
        errors[`${at}.required`] =
          'APPLICATION_COMMAND_OPTION_REQUIRED_INVALID: a subcommand or group cannot be required';
      optionErrors(option.options ?? [], `${at}.options`, errors);
      return;
    }
    if (option.required === true && optionalSeen) {
      errors[`${at}.required`] =
        'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID: Required options must be placed before non-required options';
    }
    if (option.required !== true) optionalSeen = true;
    if (option.autocomplete === true && (option.choices ?? []).length > 0) {
      errors[`${at}.autocomplete`] =
        'APPLICATION_COMMAND_OPTION_CHOICES_AUTOCOMPLETE: autocomplete cannot be set with choices';
    }
  });
}

function isChatInputName(name: string): boolean {
  return chatInputName.test(name) && name === name.toLowerCase();
}
