/**
 * CONTENT_CHECK and its settings, resolved against the models on offer: the server a check is
 * asked of (docs/moderators.md, "Content checks"). Read with the other settings (config.ts).
 */
import type { ContentCheckSettings } from '../content-check/content-check-settings.ts';
import type { ModelsConfig } from '../model-catalog/model-entry.ts';

/** The moderation model asked when CONTENT_CHECK_MODEL is unset (https://platform.openai.com/docs/guides/moderation). */
const defaultModerationModel = 'omni-moderation-latest';

export interface ContentCheckValues {
  CONTENT_CHECK: 'off' | 'moderations' | 'guard';
  CONTENT_CHECK_MODEL?: string | undefined;
  CONTENT_CHECK_BASE_URL?: string | undefined;
  CONTENT_CHECK_ON_ERROR: 'allow' | 'refuse';
  CONTENT_CHECK_TIMEOUT_SECONDS: number;
}

/** What is wrong with the content-check settings, given the models on offer (none: nothing). */
export function contentCheckProblems(values: ContentCheckValues, models: ModelsConfig): string[] {
  if (values.CONTENT_CHECK !== 'guard') return [];
  const name = values.CONTENT_CHECK_MODEL;
  if (name === undefined)
    return [
      'CONTENT_CHECK=guard needs CONTENT_CHECK_MODEL: the name of the guard model in MODELS_FILE (e.g. llama-guard3)',
    ];
  if (!models.models.some((entry) => entry.name === name))
    return [`CONTENT_CHECK_MODEL must name a model of MODELS_FILE for CONTENT_CHECK=guard (it is "${name}")`];
  return [];
}

/**
 * The check as the program uses it. `moderations` asks CONTENT_CHECK_BASE_URL, else the default
 * model's server; a key goes only to a server it was given for (a MODELS_FILE model served there),
 * never to another one. `guard` asks the MODELS_FILE model CONTENT_CHECK_MODEL names, with its key.
 */
export function contentCheckOf(values: ContentCheckValues, models: ModelsConfig): ContentCheckSettings {
  if (values.CONTENT_CHECK === 'off') return { kind: 'off' };
  const fallback = models.models.find((entry) => entry.name === models.defaultName)!.client;
  const onError = values.CONTENT_CHECK_ON_ERROR;
  // Every question waits on its check: a check that does not answer soon is an outage
  // (CONTENT_CHECK_ON_ERROR), not a minute's wait with the model's own timeout and retries.
  const timing = { timeoutSeconds: values.CONTENT_CHECK_TIMEOUT_SECONDS, maxRetries: Math.min(fallback.maxRetries, 1) };
  if (values.CONTENT_CHECK === 'guard') {
    const guard = models.models.find((entry) => entry.name === values.CONTENT_CHECK_MODEL)!.client;
    const server = { baseURL: guard.baseURL, apiKey: guard.apiKey, model: guard.model };
    return { kind: 'guard', onError, server: { ...server, ...timing } };
  }
  const baseURL = values.CONTENT_CHECK_BASE_URL?.replace(/\/+$/, '') ?? fallback.baseURL;
  const servedThere = models.models.find((entry) => entry.client.baseURL.replace(/\/+$/, '') === baseURL);
  const apiKey = baseURL === fallback.baseURL ? fallback.apiKey : (servedThere?.client.apiKey ?? null);
  return {
    kind: 'moderations',
    onError,
    server: { baseURL, apiKey, model: values.CONTENT_CHECK_MODEL ?? defaultModerationModel, ...timing },
  };
}
