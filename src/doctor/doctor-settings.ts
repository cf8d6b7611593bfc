/**
 * The settings the doctor reads: the model's (OPENAI_*, MODEL_PROVIDER, TOOL_PROTOCOL) and
 * DATABASE_PATH, parsed exactly as the bot parses them (the same schema, the environment first,
 * then `.env`). Only those: the doctor is what an operator runs when the bot does not work, and a
 * missing DISCORD_TOKEN or a broken MCP_CONFIG must not stop it from checking the model server.
 */
import { type Environment, mergeEnvironment, settingsSchema } from '../config.ts';
import type { OpenAIModelClientOptions } from '../model-servers/openai-model-client.ts';

export interface DoctorSettings {
  model: OpenAIModelClientOptions;
  databasePath: string;
}

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
});

/** The settings, or every problem with them, by name (the key is never echoed). */
export function readDoctorSettings(
  environment: Environment,
  dotenvText: string | null,
): { ok: true; settings: DoctorSettings } | { ok: false; problems: string[] } {
  const merged = mergeEnvironment(environment, dotenvText);
  const parsed = doctorSchema.safeParse(merged);
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'settings');
        // The key is never echoed back.
        const shown = name === 'OPENAI_API_KEY' || merged[name] === undefined ? '' : ` (it is "${merged[name]}")`;
        return `${name} ${issue.message}${shown}`;
      }),
    };
  const values = parsed.data;
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
    },
  };
}
