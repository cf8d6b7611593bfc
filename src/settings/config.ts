/**
 * Settings, from the environment and a `.env` file (the environment wins), validated in one place
 * so that every problem is reported at once, by name, with what to do about it.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import type { z } from 'zod';
import type { Config } from './config-shape.ts';
import { readSettingFile, readSettingFiles } from './setting-files.ts';
import * as webSearch from './web-search-settings.ts';
import { knowledgeKeyNames, knowledgeProblems } from './knowledge-settings.ts';
import { contentCheckProblems } from './content-check-config.ts';
import { configFrom, modelOfSettings, sharedModelOptions, standIn } from './config-from-settings.ts';
import { defaultBaseURL, settingsSchema } from './settings-schema.ts';
import { blankToUndefined, credentialsProblem, type Environment, shardIdList } from './setting-fields.ts';

export type { Environment } from './setting-fields.ts';

/** Rules across settings, checked on the raw values so they are reported with every other problem. */
function crossProblems(merged: Environment, purpose: ConfigPurpose): string[] {
  const problems: string[] = [];
  if (purpose !== 'chat' && blankToUndefined(merged.DISCORD_TOKEN) === undefined) {
    problems.push(
      'DISCORD_TOKEN is required to connect to Discord: copy the bot token from the Developer Portal (your application → Bot → Reset Token)',
    );
  }
  const present = (name: string) => blankToUndefined(merged[name]) !== undefined;
  const baseURL = present('OPENAI_BASE_URL') ? String(merged.OPENAI_BASE_URL) : defaultBaseURL;
  // With MODELS_FILE, each model names its own key there. Registering commands calls no model.
  if (
    purpose !== 'commands' &&
    !present('MODELS_FILE') &&
    !present('OPENAI_API_KEY') &&
    URL.canParse(baseURL) &&
    new URL(baseURL).hostname === 'api.openai.com'
  ) {
    problems.push(
      "OPENAI_API_KEY is required for OpenAI's API (the default OPENAI_BASE_URL): set it, or point OPENAI_BASE_URL at a local server that needs no key",
    );
  }
  const count = Number(merged.SHARD_COUNT);
  const ids = shardIdList().safeParse(merged.SHARD_IDS);
  // Unset, SHARD_COUNT means one process, which SHARD_IDS contradicts: refused, rather than taken for auto.
  if (ids.success && ids.data && !present('SHARD_COUNT')) {
    problems.push(
      'SHARD_IDS needs SHARD_COUNT: set SHARD_COUNT to the number of shards in all (or auto), the same on every host',
    );
  } else if (Number.isInteger(count) && ids.success && ids.data?.some((id) => id >= count)) {
    problems.push(`SHARD_IDS must name shards below SHARD_COUNT (${count}): shards are numbered from 0`);
  }
  if (present('SYSTEM_PROMPT') && present('SYSTEM_PROMPT_FILE')) {
    problems.push('SYSTEM_PROMPT_FILE cannot be set together with SYSTEM_PROMPT: keep one');
  }
  return [...problems, ...webSearch.webSearchProblems(merged), ...knowledgeProblems(merged)];
}

/** What a command needs beyond the common settings: the bot needs its Discord token; `commands` (deploy-commands) that alone, no model key. */
export type ConfigPurpose = 'bot' | 'chat' | 'commands';

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/**
 * The variables as every command reads them: the environment, then `.env` where a variable is
 * unset. A blank variable counts as unset, so it does not hide a value in .env (compose's KEY=${KEY}).
 */
export function mergeEnvironment(environment: Environment, dotenvText: string | null): Environment {
  const setInEnvironment = Object.entries(environment).filter(([, value]) => blankToUndefined(value) !== undefined);
  return { ...(dotenvText === null ? {} : parseEnv(dotenvText)), ...Object.fromEntries(setInEnvironment) };
}

/**
 * Reads the settings from `environment`, falling back to the `.env` file's text where a variable
 * is unset. `purpose` adds what that command needs; `readText` reads `SYSTEM_PROMPT_FILE`, `MCP_CONFIG` and `MODELS_FILE`.
 */
export function parseConfig(
  environment: Environment,
  dotenvText: string | null,
  options: { purpose?: ConfigPurpose; readText?: (path: string) => string } = {},
): ConfigResult {
  const { purpose = 'chat', readText = readSettingFile } = options;
  const merged = mergeEnvironment(environment, dotenvText);
  const parsed = settingsSchema.safeParse(merged);
  // Read even when other settings are wrong, so that every problem is reported at once; the
  // models' shared options then only stand in, as nothing is built from a failed parse.
  const files = readSettingFiles(merged, parsed.success ? sharedModelOptions(parsed.data) : standIn, readText);
  // A set: a list setting has one issue per bad item (MODERATOR_ROLE_IDS=12,x), all worded alike.
  const problems = [
    ...new Set(parsed.success ? [] : parsed.error.issues.map((issue) => describeIssue(issue, merged))),
    ...crossProblems(merged, purpose),
    ...files.problems,
    ...(parsed.success ? contentCheckProblems(parsed.data, files.models ?? modelOfSettings(parsed.data)) : []),
  ];
  if (!parsed.success || problems.length > 0) return { ok: false, problems };
  return { ok: true, config: configFrom(parsed.data, files) };
}

/** One problem of a setting, by name, with its value unless that is a secret or a long text. */
export function describeIssue(issue: z.core.$ZodIssue, merged: Environment): string {
  const name = String(issue.path[0] ?? 'settings');
  const value = merged[name];
  // Secrets and long texts are never echoed back, nor a URL with a password in it.
  const shown =
    value === undefined ||
    name === 'OPENAI_API_KEY' ||
    name === 'DISCORD_TOKEN' ||
    webSearch.webSearchKeyNames.has(name) ||
    knowledgeKeyNames.has(name) ||
    name === 'SYSTEM_PROMPT' ||
    issue.message === credentialsProblem
      ? ''
      : ` (it is "${value}")`;
  return `${name} ${issue.message}${shown}`;
}

/** The one message printed when the settings cannot be used. */
export function formatProblems(problems: readonly string[]): string {
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
  return [
    `Cannot start: the settings have ${count} (read from the environment, then .env):`,
    ...problems.map((problem) => `  - ${problem}`),
    'Fix them in .env (copy .env.example to start) or in the environment; docs/settings.md lists every setting.',
  ].join('\n');
}

/** The text of the `.env` file at `path`, or null when there is none. */
export function readDotenv(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * DATABASE_PATH alone, read the way every entry point reads settings (environment first, then
 * `.env`). Not through parseConfig: that refuses to start without the model's settings (an
 * OPENAI_API_KEY for the default URL, say), which reading a log or a health file does not need, and
 * a person looking into why the bot fails must not be stopped by the same broken settings.
 */
export function databasePathSetting(): string {
  return settingsSchema.shape.DATABASE_PATH.parse(mergeEnvironment(process.env, readDotenv('.env')).DATABASE_PATH);
}
