/**
 * What applies in a place: a thread inherits from its channel, a channel from its server, the
 * server from the operator's defaults. Each value comes with where it was set, by whom and when,
 * for `/settings show`.
 */
import type { PlaceSettingQueries, SettingChangeRow, SettingScope } from '../../db/place-settings.ts';

/** Setting keys as stored. A tool's switch is `tool:<tool or MCP server name>`. */
export const settingKeys = {
  persona: 'persona',
  model: 'model',
  modelOnly: 'model_only',
  /** The server's log channel (server scope only): where the moderators' log is posted. */
  logChannel: 'log_channel',
  contentCheck: 'content_check',
  /** Whether every new post of a forum is answered, mentioned or not (`/settings forum-answers`). */
  forumAnswers: 'forum_answers',
  /** The forum tag "Mark solved" applies (`/settings forum-solved-tag`), by name. */
  forumSolvedTag: 'forum_solved_tag',
  /** Member memory (server scope only): the `remember` tool and each member's facts in their own runs. */
  memberMemory: 'member_memory',
} as const;
export const toolKey = (name: string) => `tool:${name}`;

/** The server's log channel (`/settings log-channel`), if one is set. */
export function logChannelOf(queries: Pick<PlaceSettingQueries, 'at'>, guildId: string): string | null {
  return queries.at('server', guildId).find((row) => row.key === settingKeys.logChannel)?.value ?? null;
}

/** A place in a server: the thread (if any), its channel, and the server. */
export interface Place {
  guildId: string;
  channelId: string | null;
  threadId: string | null;
}

/** A value and the change that set it; `change` is null for the operator's default. */
export interface Sourced<T> {
  value: T;
  change: SettingChangeRow | null;
}

export interface EffectiveSettings {
  /** The moderators' persona here, with its version (the id of the change that set it); null: none. */
  persona: Sourced<string> | null;
  model: Sourced<string>;
  /** Whether threads here must keep the model (no `/model`). */
  modelOnly: Sourced<boolean>;
  /** Each tool or MCP server switched on or off here, by name. */
  tools: ReadonlyMap<string, Sourced<boolean>>;
  /** Whether questions and answers are checked here (when the operator's CONTENT_CHECK is on): on unless switched off. */
  contentCheck: Sourced<boolean>;
  /** Whether every new post of a forum here is answered, not only those that mention the bot: off unless switched on. */
  forumAnswers: Sourced<boolean>;
  /** The tag a forum post marked solved gets, by name; null: a tag named like "solved", if the forum has one. */
  forumSolvedTag: Sourced<string> | null;
  /** Whether members' facts are remembered here (`/settings member-memory`, the server's alone): off unless switched on. */
  memberMemory: Sourced<boolean>;
}

/** The places a setting is looked for, nearest first. */
function levels(place: Place): { scope: SettingScope; id: string }[] {
  return [
    ...(place.threadId ? [{ scope: 'thread' as const, id: place.threadId }] : []),
    ...(place.channelId ? [{ scope: 'channel' as const, id: place.channelId }] : []),
    { scope: 'server' as const, id: place.guildId },
  ];
}

/** The settings in effect at `place`; a model no longer offered (`modelNames`) is passed over. */
export function effectiveSettings(
  queries: PlaceSettingQueries,
  place: Place,
  defaults: { modelName: string; modelNames: readonly string[] },
): EffectiveSettings {
  const rowsByLevel = levels(place).map((level) => queries.at(level.scope, level.id));
  const nearest = (key: string, usable: (row: SettingChangeRow) => boolean = () => true) => {
    for (const rows of rowsByLevel) {
      const row = rows.find((candidate) => candidate.key === key);
      if (row?.value !== null && row?.value !== undefined && usable(row)) return row;
    }
    return null;
  };
  const persona = nearest(settingKeys.persona);
  const modelOnly = nearest(settingKeys.modelOnly);
  const contentCheck = nearest(settingKeys.contentCheck);
  const forumAnswers = nearest(settingKeys.forumAnswers);
  const forumSolvedTag = nearest(settingKeys.forumSolvedTag);
  // The server's switch alone: a channel's row, were one ever written, could not turn it on.
  const memberMemory = rowsByLevel.at(-1)!.find((row) => row.key === settingKeys.memberMemory && row.value !== null);
  // "Threads keep this model": a thread's own choice, made before, no longer counts.
  const model = nearest(
    settingKeys.model,
    (row) => defaults.modelNames.includes(row.value!) && !(modelOnly?.value === 'yes' && row.scope === 'thread'),
  );
  const tools = new Map<string, Sourced<boolean>>();
  // Nearest first: a channel's switch wins over the server's.
  for (const row of rowsByLevel.flat().toReversed()) {
    if (!row.key.startsWith('tool:')) continue;
    const name = row.key.slice('tool:'.length);
    if (row.value === null) continue;
    tools.set(name, { value: row.value === 'on', change: row });
  }
  return {
    persona: persona ? { value: persona.value!, change: persona } : null,
    model: model ? { value: model.value!, change: model } : { value: defaults.modelName, change: null },
    modelOnly: modelOnly ? { value: modelOnly.value === 'yes', change: modelOnly } : { value: false, change: null },
    tools,
    contentCheck: contentCheck
      ? { value: contentCheck.value === 'on', change: contentCheck }
      : { value: true, change: null },
    forumAnswers: forumAnswers
      ? { value: forumAnswers.value === 'on', change: forumAnswers }
      : { value: false, change: null },
    forumSolvedTag: forumSolvedTag ? { value: forumSolvedTag.value!, change: forumSolvedTag } : null,
    memberMemory: memberMemory
      ? { value: memberMemory.value === 'on', change: memberMemory }
      : { value: false, change: null },
  };
}

/**
 * Whether a tool is on here: the nearest switch of the tool or of its MCP server decides (at the
 * same place, the tool's own); on unless switched off.
 */
export function toolEnabled(settings: EffectiveSettings, toolName: string, serverName: string | null): boolean {
  const own = settings.tools.get(toolName);
  const server = serverName === null ? undefined : settings.tools.get(serverName);
  if (!own) return server?.value ?? true;
  if (!server) return own.value;
  return levelRank(own.change) <= levelRank(server.change) ? own.value : server.value;
}

const rank: Record<SettingScope, number> = { thread: 0, channel: 1, server: 2 };
const levelRank = (change: SettingChangeRow | null) => (change ? rank[change.scope] : 3);

/** The MCP server a tool comes from, by its name (`<server>__<tool>`), among `serverNames`. */
export function serverOfTool(toolName: string, serverNames: readonly string[]): string | null {
  return serverNames.find((name) => toolName.startsWith(`${name}__`)) ?? null;
}
