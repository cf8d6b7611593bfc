/**
 * Settings, from the environment and a `.env` file (the environment wins), validated in one place
 * so that every problem is reported at once, by name, with what to do about it.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import type { Config } from './config-shape.ts';
import type { ModelsConfig } from '../model-catalog/model-entry.ts';
import type { SharedModelOptions } from '../model-catalog/models-file.ts';
import { readSettingFile, readSettingFiles } from './setting-files.ts';
import * as webSearch from './web-search-settings.ts';
import { contentCheckOf, contentCheckProblems } from './content-check-config.ts';
import { providerIds } from '../model-servers/profiles/index.ts';
import {
  blankToUndefined,
  credentialsProblem,
  decimal,
  type Environment,
  httpUrl,
  idList,
  optionalOrigin,
  oneOf,
  optionalHttpUrl,
  optionalWhole,
  optionalText,
  shardCount,
  shardIdList,
  text,
  whole,
} from './setting-fields.ts';

export type { Environment } from './setting-fields.ts';

const defaultBaseURL = 'https://api.openai.com/v1';

/** Every setting: the README's table and `.env.example` list exactly these (a test checks). */
export const settingsSchema = z.object({
  OPENAI_API_KEY: optionalText(),
  OPENAI_BASE_URL: httpUrl(defaultBaseURL),
  OPENAI_MODEL: text('gpt-4.1-mini'),
  OPENAI_TEMPERATURE: decimal(0, 2, 0),
  OPENAI_MAX_RETRIES: whole(0, 10, 2),
  OPENAI_TIMEOUT_SECONDS: whole(1, 3600, 60),
  OPENAI_MAX_RETRY_WAIT_SECONDS: whole(0, 3600, 30),
  MODEL_PROVIDER: oneOf(['auto', ...providerIds], 'auto'),
  TOOL_PROTOCOL: oneOf(['auto', 'native', 'text'], 'auto'),
  MODEL_VISION: oneOf(['auto', 'on', 'off'], 'auto'),
  IMAGE_MAX_MB: whole(1, 20, 5),
  MEMORY_IMAGES: whole(1, 20, 4),
  MESSAGE_RETENTION_DAYS: optionalWhole(1, 36500),
  STEP_LOG_RETENTION_DAYS: optionalWhole(1, 36500),
  IMAGE_RETENTION_DAYS: optionalWhole(1, 36500),
  MAX_STEPS: whole(1, 50, 10),
  MAX_TOOL_CALLS_PER_TURN: whole(1, 64, 8),
  RUN_TIMEOUT_SECONDS: whole(5, 3600, 120),
  TOOL_TIMEOUT_SECONDS: whole(1, 600, 30),
  TOOL_CONFIRM_SECONDS: whole(10, 900, 60),
  DATABASE_PATH: text('./data/bot.sqlite'),
  MEMORY_TOKEN_BUDGET: whole(200, 1_000_000, 8000),
  MEMORY_MESSAGE_TOKEN_CAP: whole(50, 100_000, 4000),
  MEMORY_SUMMARY: oneOf(['on', 'off'], 'on'),
  SYSTEM_PROMPT: optionalText(),
  SYSTEM_PROMPT_FILE: optionalText(),
  DISCORD_TOKEN: optionalText(),
  DISCORD_API_URL: httpUrl('https://discord.com/api').refine((url) => !/\/v\d+\/?$/.test(url), {
    message: 'must not end in a version such as /v10 (the client adds it): use https://discord.com/api',
  }),
  DISCORD_CDN_URL: optionalOrigin('http://127.0.0.1:8080'),
  ALLOWED_GUILD_IDS: idList(),
  ALLOWED_CHANNEL_IDS: idList(),
  STREAM_ANSWERS: oneOf(['on', 'off'], 'on'),
  TOOL_POSTS: oneOf(['all', 'summary', 'off'], 'all'),
  MAX_CONCURRENT_RUNS: whole(1, 100, 4),
  ATTACHMENT_MAX_KB: whole(1, 10_000, 16),
  DISCORD_GUILD_ID: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d{17,20}$/, 'must be a Discord server id (17 to 20 digits)')
      .optional(),
  ),
  MODERATOR_ROLE_IDS: idList(),
  USER_MESSAGES_PER_MINUTE: whole(0, 1000, 10),
  DAILY_TOKEN_BUDGET: whole(0, 1_000_000_000, 1_000_000),
  CONTENT_CHECK: oneOf(['off', 'moderations', 'guard'], 'off'),
  CONTENT_CHECK_MODEL: optionalText(),
  CONTENT_CHECK_BASE_URL: optionalHttpUrl(),
  CONTENT_CHECK_ON_ERROR: oneOf(['allow', 'refuse'], 'refuse'),
  CONTENT_CHECK_TIMEOUT_SECONDS: whole(1, 120, 10),
  ALLOW_DMS: oneOf(['on', 'off'], 'off'),
  DM_DAILY_TOKENS: whole(0, 1_000_000_000, 200_000),
  MCP_CONFIG: optionalText(),
  MODELS_FILE: optionalText(),
  ...webSearch.webSearchFields,
  SHARD_COUNT: shardCount(),
  SHARD_IDS: shardIdList(),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
});

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
  return [...problems, ...webSearch.webSearchProblems(merged)];
}

export const settingNames = Object.keys(settingsSchema.shape) as (keyof typeof settingsSchema.shape)[];

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

type Settings = z.output<typeof settingsSchema>;

/** The program's settings from valid variables and the files they name. */
function configFrom(settings: Settings, files: ReturnType<typeof readSettingFiles>): Config {
  const models = files.models ?? modelOfSettings(settings);
  return {
    mcpServers: files.mcpServers,
    webSearch: webSearch.webSearchFrom(settings),
    secrets: [
      settings.DISCORD_TOKEN,
      settings.OPENAI_API_KEY,
      ...webSearch.webSearchKeys(settings),
      ...files.secrets,
    ].filter((secret): secret is string => secret !== undefined),
    shards: { count: settings.SHARD_COUNT, ids: settings.SHARD_IDS ?? null },
    models,
    contentCheck: contentCheckOf(settings, models),
    model: models.models.find((entry) => entry.name === models.defaultName)!.client,
    agent: {
      maxSteps: settings.MAX_STEPS,
      maxToolCallsPerTurn: settings.MAX_TOOL_CALLS_PER_TURN,
      runTimeoutMs: settings.RUN_TIMEOUT_SECONDS * 1000,
      toolTimeoutMs: settings.TOOL_TIMEOUT_SECONDS * 1000,
    },
    databasePath: settings.DATABASE_PATH,
    memory: {
      tokenBudget: settings.MEMORY_TOKEN_BUDGET,
      messageTokenCap: settings.MEMORY_MESSAGE_TOKEN_CAP,
      images: settings.MEMORY_IMAGES,
      summaries: settings.MEMORY_SUMMARY === 'on',
    },
    images: { vision: settings.MODEL_VISION, maxBytes: settings.IMAGE_MAX_MB * 1024 * 1024 },
    retention: {
      messageDays: settings.MESSAGE_RETENTION_DAYS,
      stepLogDays: settings.STEP_LOG_RETENTION_DAYS,
      imageDays: settings.IMAGE_RETENTION_DAYS,
    },
    systemPrompt: settings.SYSTEM_PROMPT ?? files.systemPrompt,
    logLevel: settings.LOG_LEVEL,
    discord: {
      token: settings.DISCORD_TOKEN ?? null,
      apiUrl: settings.DISCORD_API_URL.replace(/\/+$/, ''),
      cdnOrigin: settings.DISCORD_CDN_URL ?? null,
      allowedGuildIds: settings.ALLOWED_GUILD_IDS,
      allowedChannelIds: settings.ALLOWED_CHANNEL_IDS,
      toolPosts: settings.TOOL_POSTS,
      streamAnswers: settings.STREAM_ANSWERS === 'on',
      maxConcurrentRuns: settings.MAX_CONCURRENT_RUNS,
      attachmentMaxBytes: settings.ATTACHMENT_MAX_KB * 1024,
      commandGuildId: settings.DISCORD_GUILD_ID ?? null,
      moderatorRoleIds: settings.MODERATOR_ROLE_IDS,
      userMessagesPerMinute: settings.USER_MESSAGES_PER_MINUTE,
      dailyTokenBudget: settings.DAILY_TOKEN_BUDGET,
      allowDms: settings.ALLOW_DMS === 'on',
      dmDailyTokens: settings.DM_DAILY_TOKENS,
      toolConfirmMs: settings.TOOL_CONFIRM_SECONDS * 1000,
    },
  };
}

/** Without MODELS_FILE: the one model the OPENAI_* settings describe. */
function modelOfSettings(settings: Settings): ModelsConfig {
  return {
    models: [
      {
        name: settings.OPENAI_MODEL,
        description: '',
        // Nothing said of it: MODEL_VISION decides (auto: from what is known of the model).
        vision: null,
        contextTokens: null,
        price: null,
        client: {
          ...sharedModelOptions(settings),
          apiKey: settings.OPENAI_API_KEY ?? null,
          baseURL: settings.OPENAI_BASE_URL,
          model: settings.OPENAI_MODEL,
          provider: settings.MODEL_PROVIDER,
        },
      },
    ],
    defaultName: settings.OPENAI_MODEL,
  };
}

/** What every model shares, from the OPENAI_* settings. */
function sharedModelOptions(settings: Settings): SharedModelOptions {
  return {
    temperature: settings.OPENAI_TEMPERATURE,
    maxRetries: settings.OPENAI_MAX_RETRIES,
    timeoutSeconds: settings.OPENAI_TIMEOUT_SECONDS,
    maxRetryWaitSeconds: settings.OPENAI_MAX_RETRY_WAIT_SECONDS,
    toolProtocol: settings.TOOL_PROTOCOL,
  };
}

const standIn: SharedModelOptions = { temperature: 0, maxRetries: 0, timeoutSeconds: 1, maxRetryWaitSeconds: 0 };

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
    'Fix them in .env (copy .env.example to start) or in the environment; README.md lists every setting under "Settings".',
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
