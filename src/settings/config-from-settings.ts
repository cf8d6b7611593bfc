/**
 * The program's settings (Config) derived from valid settings and the files they name: each part
 * handed the values it needs. config.ts calls it once every setting has been checked.
 */
import type { Config } from './config-shape.ts';
import type { ModelsConfig } from '../model-catalog/model-entry.ts';
import type { SharedModelOptions } from '../model-catalog/models-file.ts';
import type { readSettingFiles } from './setting-files.ts';
import type { Settings } from './settings-schema.ts';
import * as webSearch from './web-search-settings.ts';
import { contentCheckOf } from './content-check-config.ts';
import { knowledgeFrom } from './knowledge-settings.ts';

/** The program's settings from valid variables and the files they name. */
export function configFrom(settings: Settings, files: ReturnType<typeof readSettingFiles>): Config {
  const models = files.models ?? modelOfSettings(settings);
  const secrets = [
    settings.DISCORD_TOKEN,
    settings.OPENAI_API_KEY,
    ...webSearch.webSearchKeys(settings),
    settings.EMBEDDING_API_KEY,
    ...files.secrets,
  ].filter((secret): secret is string => secret !== undefined);
  return {
    mcpServers: files.mcpServers,
    webSearch: webSearch.webSearchFrom(settings),
    knowledge: knowledgeFrom(settings, {
      baseURL: settings.OPENAI_BASE_URL,
      apiKey: settings.OPENAI_API_KEY ?? null,
      timeoutSeconds: settings.OPENAI_TIMEOUT_SECONDS,
      maxRetries: settings.OPENAI_MAX_RETRIES,
    }),
    secrets,
    shards: { count: settings.SHARD_COUNT, ids: settings.SHARD_IDS ?? null },
    models,
    contentCheck: contentCheckOf(settings, models),
    model: models.models.find((entry) => entry.name === models.defaultName)!.client,
    agent: {
      maxSteps: settings.MAX_STEPS,
      maxToolCallsPerTurn: settings.MAX_TOOL_CALLS_PER_TURN,
      runTimeoutMs: settings.RUN_TIMEOUT_SECONDS * 1000,
      toolTimeoutMs: settings.TOOL_TIMEOUT_SECONDS * 1000,
      secrets,
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
      summarizeMaxMessages: settings.SUMMARIZE_MAX_MESSAGES,
      summarizeTimeoutMs: settings.SUMMARIZE_TIMEOUT_SECONDS * 1000,
      dailyTokenBudget: settings.DAILY_TOKEN_BUDGET,
      allowDms: settings.ALLOW_DMS === 'on',
      memberMemoryInDms: settings.MEMBER_MEMORY_IN_DMS === 'on',
      dmDailyTokens: settings.DM_DAILY_TOKENS,
      totalDailyTokens: settings.TOTAL_DAILY_TOKENS,
      userInstall: settings.USER_INSTALL === 'on',
      userInstallDailyTokens: settings.USER_INSTALL_DAILY_TOKENS,
      toolConfirmMs: settings.TOOL_CONFIRM_SECONDS * 1000,
    },
  };
}

/** Without MODELS_FILE: the one model the OPENAI_* settings describe. */
export function modelOfSettings(settings: Settings): ModelsConfig {
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
export function sharedModelOptions(settings: Settings): SharedModelOptions {
  return {
    temperature: settings.OPENAI_TEMPERATURE,
    maxRetries: settings.OPENAI_MAX_RETRIES,
    timeoutSeconds: settings.OPENAI_TIMEOUT_SECONDS,
    maxRetryWaitSeconds: settings.OPENAI_MAX_RETRY_WAIT_SECONDS,
    toolProtocol: settings.TOOL_PROTOCOL,
  };
}

/** Stands in for the shared options while other settings are wrong: nothing is built from it. */
export const standIn: SharedModelOptions = { temperature: 0, maxRetries: 0, timeoutSeconds: 1, maxRetryWaitSeconds: 0 };
