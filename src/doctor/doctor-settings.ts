/**
 * The settings the doctor reads: the model's (OPENAI_*, MODEL_PROVIDER, TOOL_PROTOCOL),
 * MEMORY_TOKEN_BUDGET and DATABASE_PATH, parsed exactly as the bot parses them (the same schema, the environment first,
 * then `.env`). Only those: the doctor is what an operator runs when the bot does not work, and a
 * missing DISCORD_TOKEN or a broken MCP_CONFIG must not stop it from checking the model server.
 */
import { describeIssue, type Environment, mergeEnvironment } from '../settings/config.ts';
import { settingsSchema } from '../settings/settings-schema.ts';
import { readSettingFile, readSettingFiles } from '../settings/setting-files.ts';
import { blankToUndefined } from '../settings/setting-fields.ts';
import type { OpenAIModelClientOptions } from '../model-servers/openai-model-client.ts';

export interface DoctorSettings {
  model: OpenAIModelClientOptions;
  databasePath: string;
  /** Where the model's settings were written, as the report names them to the operator. */
  names: SettingNames;
  /** MEMORY_TOKEN_BUDGET: what a conversation adds to the bot's smallest request. */
  memoryTokenBudget: number;
}

/** The names of the settings that say where the model is, which key it takes, which model, which profile. */
export interface SettingNames {
  baseURL: string;
  apiKey: string;
  model: string;
  provider: string;
}

export const environmentNames: SettingNames = {
  baseURL: 'OPENAI_BASE_URL',
  apiKey: 'OPENAI_API_KEY',
  model: 'OPENAI_MODEL',
  provider: 'MODEL_PROVIDER',
};

const modelsFileNames = (name: string): SettingNames => ({
  baseURL: `base_url of "${name}" in MODELS_FILE`,
  apiKey: `api_key of "${name}" in MODELS_FILE`,
  model: `model of "${name}" in MODELS_FILE`,
  provider: `provider of "${name}" in MODELS_FILE`,
});

const doctorSchema = settingsSchema.pick({
  OPENAI_API_KEY: true,
  OPENAI_BASE_URL: true,
  OPENAI_MODEL: true,
  OPENAI_TEMPERATURE: true,
  OPENAI_MAX_RETRIES: true,
  OPENAI_TIMEOUT_SECONDS: true,
  OPENAI_MAX_RETRY_WAIT_SECONDS: true,
  MODEL_PROVIDER: true,
  TOOL_PROTOCOL: true,
  DATABASE_PATH: true,
  MEMORY_TOKEN_BUDGET: true,
});

/**
 * The settings, or every problem with them, by name (the key is never echoed). With MODELS_FILE,
 * the model checked is its default, or the one `modelName` names (`--model NAME`).
 */
export function readDoctorSettings(
  environment: Environment,
  dotenvText: string | null,
  options: { modelName?: string | null; readText?: (path: string) => string } = {},
): { ok: true; settings: DoctorSettings } | { ok: false; problems: string[] } {
  const merged = mergeEnvironment(environment, dotenvText);
  const parsed = doctorSchema.safeParse(merged);
  const modelsFile = blankToUndefined(merged.MODELS_FILE) as string | undefined;
  if (options.modelName && modelsFile === undefined)
    return { ok: false, problems: ['--model names a model of MODELS_FILE, which is not set'] };
  if (!parsed.success)
    return {
      ok: false,
      // As the bot words them: the key, and a URL with a password in it, never echoed back.
      problems: parsed.error.issues.map((issue) => describeIssue(issue, merged)),
    };
  const values = parsed.data;
  if (modelsFile !== undefined) {
    const shared = {
      temperature: values.OPENAI_TEMPERATURE,
      maxRetries: values.OPENAI_MAX_RETRIES,
      timeoutSeconds: values.OPENAI_TIMEOUT_SECONDS,
      maxRetryWaitSeconds: values.OPENAI_MAX_RETRY_WAIT_SECONDS,
      toolProtocol: values.TOOL_PROTOCOL,
    };
    // MCP_CONFIG and SYSTEM_PROMPT_FILE left out: their problems must not keep the doctor from checking a model.
    const files = readSettingFiles(
      { ...merged, MCP_CONFIG: undefined, SYSTEM_PROMPT_FILE: undefined },
      shared,
      options.readText ?? readSettingFile,
      { name: options.modelName ?? null },
    );
    if (!files.models) return { ok: false, problems: files.problems };
    const name = options.modelName ?? files.models.defaultName;
    const entry = files.models.models.find((model) => model.name === name);
    if (!entry)
      return {
        ok: false,
        problems: [
          `MODELS_FILE has no model named "${name}": it has ${files.models.models.map((model) => model.name).join(', ')}`,
        ],
      };
    return {
      ok: true,
      settings: {
        model: entry.client,
        databasePath: values.DATABASE_PATH,
        names: modelsFileNames(entry.name),
        memoryTokenBudget: values.MEMORY_TOKEN_BUDGET,
      },
    };
  }
  return {
    ok: true,
    settings: {
      model: {
        apiKey: values.OPENAI_API_KEY ?? null,
        baseURL: values.OPENAI_BASE_URL,
        model: values.OPENAI_MODEL,
        temperature: values.OPENAI_TEMPERATURE,
        maxRetries: values.OPENAI_MAX_RETRIES,
        timeoutSeconds: values.OPENAI_TIMEOUT_SECONDS,
        maxRetryWaitSeconds: values.OPENAI_MAX_RETRY_WAIT_SECONDS,
        provider: values.MODEL_PROVIDER,
        toolProtocol: values.TOOL_PROTOCOL,
      },
      databasePath: values.DATABASE_PATH,
      names: environmentNames,
      memoryTokenBudget: values.MEMORY_TOKEN_BUDGET,
    },
  };
}
