import { type REST, type RESTPostAPIApplicationCommandsJSONBody, Routes } from 'discord.js';
import type { Logger } from '../agent/logger.ts';

/**
 * The part of a registered command that is ours to decide, with Discord's defaults filled in.
 * Guild commands come back without `contexts` and `integration_types`, so those are not compared there.
 */
export function normalizeCommand(command: Record<string, unknown>, guildScope = false): unknown {
  const permissions = command.default_member_permissions;
  return {
    name: command.name,
    type: command.type ?? 1,
    description: command.description ?? '',
    options: normalizeOptions(command.options),
    // A bit set: a string from the API and the builders, a bigint or number when written by hand.
    default_member_permissions:
      typeof permissions === 'string' || typeof permissions === 'bigint' || typeof permissions === 'number'
        ? String(permissions)
        : null,
    ...(guildScope ? {} : { contexts: command.contexts ?? null, integration_types: command.integration_types ?? [0] }),
    nsfw: command.nsfw ?? false,
  };
}

function normalizeOptions(options: unknown): unknown[] {
  if (!Array.isArray(options)) return [];
  return options.map((raw: Record<string, unknown>) => {
    const option: Record<string, unknown> = {
      type: raw.type,
      name: raw.name,
      description: raw.description ?? '',
      required: raw.required ?? false,
    };
    for (const key of ['min_value', 'max_value', 'min_length', 'max_length', 'channel_types'] as const) {
      if (raw[key] !== undefined && raw[key] !== null) option[key] = raw[key];
    }
    if (raw.autocomplete === true) option.autocomplete = true;
    if (Array.isArray(raw.choices) && raw.choices.length > 0)
      option.choices = raw.choices.map((choice: { name: string; value: unknown }) => ({
        name: choice.name,
        value: choice.value,
      }));
    const nested = normalizeOptions(raw.options);
    if (nested.length > 0) option.options = nested;
    return option;
  });
}

/** Whether what Discord has differs from what we would register (order aside). */
export function commandsDiffer(
  registered: readonly Record<string, unknown>[],
  wanted: readonly RESTPostAPIApplicationCommandsJSONBody[],
  guildScope = false,
): boolean {
  const key = (commands: readonly Record<string, unknown>[]) =>
    JSON.stringify(
      commands
        .map((command) => normalizeCommand(command, guildScope))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  return key(registered) !== key(wanted as unknown as Record<string, unknown>[]);
}

export interface CommandRegistry {
  /** Registered in one server (whose commands Discord returns without contexts). */
  guildScope: boolean;
  fetch(): Promise<Record<string, unknown>[]>;
  put(commands: readonly RESTPostAPIApplicationCommandsJSONBody[]): Promise<unknown>;
}

/** Discord's commands of this application, as Discord's API returns them: in one server (while developing), or everywhere. */
export function commandRegistry(rest: REST, applicationId: string, guildId: string | null): CommandRegistry {
  const route = guildId
    ? Routes.applicationGuildCommands(applicationId, guildId)
    : Routes.applicationCommands(applicationId);
  return {
    guildScope: guildId !== null,
    fetch: async () => (await rest.get(route)) as Record<string, unknown>[],
    put: (commands) => rest.put(route, { body: commands }),
  };
}

/** Registers the commands only when they differ from Discord's: an unchanged restart makes no PUT. */
export async function syncCommands(
  registry: CommandRegistry,
  wanted: readonly RESTPostAPIApplicationCommandsJSONBody[],
  logger: Logger,
): Promise<boolean> {
  const registered = await registry.fetch();
  if (!commandsDiffer(registered, wanted, registry.guildScope)) {
    logger.info({ commands: wanted.length }, 'slash commands unchanged');
    return false;
  }
  await registry.put(wanted);
  logger.info({ commands: wanted.map((command) => command.name) }, 'slash commands registered');
  return true;
}
