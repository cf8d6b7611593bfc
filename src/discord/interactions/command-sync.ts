import { DiscordAPIError, type REST, type RESTPostAPIApplicationCommandsJSONBody, Routes } from 'discord.js';
import type { Logger } from '../../agent/logger.ts';

/**
 * The part of a registered command that is ours to decide, with Discord's defaults filled in.
 * Guild commands come back without `contexts` and `integration_types`, so those are not compared there.
 */
function normalizeCommand(command: Record<string, unknown>, guildScope = false): unknown {
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

interface CommandRegistry {
  /** Registered in one server (whose commands Discord returns without contexts). */
  guildScope: boolean;
  fetch(): Promise<Record<string, unknown>[]>;
  put(commands: readonly RESTPostAPIApplicationCommandsJSONBody[]): Promise<unknown>;
}

/** The route of a scope's commands (global when `guildId` is null), or of one of them. */
function scopeRoute(applicationId: string, guildId: string | null, commandId?: string): `/${string}` {
  if (guildId === null)
    return commandId === undefined
      ? Routes.applicationCommands(applicationId)
      : Routes.applicationCommand(applicationId, commandId);
  return commandId === undefined
    ? Routes.applicationGuildCommands(applicationId, guildId)
    : Routes.applicationGuildCommand(applicationId, guildId, commandId);
}

/** Discord's commands of this application, as Discord's API returns them: in one server (while developing), or everywhere. */
function commandRegistry(rest: REST, applicationId: string, guildId: string | null): CommandRegistry {
  const route = scopeRoute(applicationId, guildId);
  return {
    guildScope: guildId !== null,
    fetch: async () => (await rest.get(route)) as Record<string, unknown>[],
    put: (commands) => rest.put(route, { body: commands }),
  };
}

/** Registers the commands only when they differ from Discord's: an unchanged restart makes no PUT. */
async function syncCommands(
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

/** At most this many servers are looked in for copies of the commands: one page of Discord's list of the bot's servers. */
const guildsChecked = 200;

/** Where commands go, as the operator reads it. */
export function describeScope(guildId: string | null): string {
  return guildId === null ? 'for every server (global)' : `in the server ${guildId}`;
}

export interface Registration {
  rest: REST;
  applicationId: string;
  /** DISCORD_GUILD_ID: the one server to register in, or null for every server. */
  guildId: string | null;
  wanted: readonly RESTPostAPIApplicationCommandsJSONBody[];
  /**
   * Registering globally, look in the bot's servers for copies even when the global commands were
   * unchanged (`npm run deploy-commands`: a copy may date from an older version, which left them).
   */
  checkServersAlways: boolean;
  logger: Logger;
}

/**
 * Registers the commands where the settings say (only when they differ), then deletes this bot's
 * commands from the other scope: a server shows its own commands and the global ones, so a
 * command in both shows twice. The other scope is the global one when registering in a server,
 * and the bot's servers (200 at most) when registering globally, after the global commands changed,
 * as they do when DISCORD_GUILD_ID is unset again (a GET per server at every start would cost every
 * bot for a development setting). Only commands named as ours are deleted; others stay.
 */
export async function registerCommands(
  registration: Registration,
): Promise<{ changed: boolean; removed: { guildId: string | null; names: string[] }[] }> {
  const { rest, applicationId, guildId, wanted, logger } = registration;
  const changed = await syncCommands(commandRegistry(rest, applicationId, guildId), wanted, logger);
  let others: (string | null)[] = [];
  if (guildId !== null) others = [null];
  else if (changed || registration.checkServersAlways) others = await botServers(rest);
  const ours = new Set(wanted.map((command) => `${command.type ?? 1}:${command.name}`));
  const removed: { guildId: string | null; names: string[] }[] = [];
  for (const other of others) {
    const names = await removeCopies(rest, applicationId, other, ours);
    if (names.length === 0) continue;
    removed.push({ guildId: other, names });
    logger.info(
      { scope: other ?? 'global', commands: names },
      `slash commands removed ${describeScope(other)}: they are registered ${describeScope(guildId)}`,
    );
  }
  return { changed, removed };
}

/** The ids of the bot's servers: all of its shards', the first `guildsChecked` (https://discord.com/developers/docs/resources/user#get-current-user-guilds). */
async function botServers(rest: REST): Promise<string[]> {
  const page = (await rest.get(Routes.userGuilds(), {
    query: new URLSearchParams({ limit: String(guildsChecked) }),
  })) as { id: string }[];
  return page.map((guild) => guild.id);
}

/** Deletes from one scope the commands whose type and name are in `ours`; returns their names. */
async function removeCopies(
  rest: REST,
  applicationId: string,
  guildId: string | null,
  ours: ReadonlySet<string>,
): Promise<string[]> {
  let registered: { id: string; name: string; type?: number }[];
  try {
    registered = (await rest.get(scopeRoute(applicationId, guildId))) as typeof registered;
  } catch (error) {
    // A server the bot was invited to without the applications.commands scope holds none of ours.
    if (error instanceof DiscordAPIError && error.status === 403) return [];
    throw error;
  }
  const copies = registered.filter((command) => ours.has(`${command.type ?? 1}:${command.name}`));
  for (const command of copies) await rest.delete(scopeRoute(applicationId, guildId, command.id));
  return copies.map((command) => command.name);
}
