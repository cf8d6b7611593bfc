/**
 * Every setting the operator may give, with its default and its bounds: the one list the README's
 * table and `.env.example` follow. Read and checked by config.ts.
 */
import { z } from 'zod';
import * as webSearch from './web-search-settings.ts';
import { knowledgeFields } from './knowledge-settings.ts';
import { providerIds } from '../model-servers/profiles/index.ts';
import {
  blankToUndefined,
  decimal,
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

export const defaultBaseURL = 'https://api.openai.com/v1';

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
  SUMMARIZE_MAX_MESSAGES: whole(10, 10_000, 500),
  SUMMARIZE_TIMEOUT_SECONDS: whole(10, 840, 600),
  DAILY_TOKEN_BUDGET: whole(0, 1_000_000_000, 1_000_000),
  CONTENT_CHECK: oneOf(['off', 'moderations', 'guard'], 'off'),
  CONTENT_CHECK_MODEL: optionalText(),
  CONTENT_CHECK_BASE_URL: optionalHttpUrl(),
  CONTENT_CHECK_ON_ERROR: oneOf(['allow', 'refuse'], 'refuse'),
  CONTENT_CHECK_TIMEOUT_SECONDS: whole(1, 120, 10),
  ALLOW_DMS: oneOf(['on', 'off'], 'off'),
  MEMBER_MEMORY_IN_DMS: oneOf(['on', 'off'], 'off'),
  DM_DAILY_TOKENS: whole(0, 1_000_000_000, 200_000),
  TOTAL_DAILY_TOKENS: whole(0, 10_000_000_000, 10_000_000),
  USER_INSTALL: oneOf(['on', 'off'], 'off'),
  USER_INSTALL_DAILY_TOKENS: whole(0, 1_000_000_000, 200_000),
  MCP_CONFIG: optionalText(),
  MODELS_FILE: optionalText(),
  ...webSearch.webSearchFields,
  ...knowledgeFields,
  SHARD_COUNT: shardCount(),
  SHARD_IDS: shardIdList(),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
});

export const settingNames = Object.keys(settingsSchema.shape) as (keyof typeof settingsSchema.shape)[];

/** The settings once valid, as the schema gives them. */
export type Settings = z.output<typeof settingsSchema>;
