/**
 * The `MODELS_FILE`: the models moderators may choose from, on one or more servers. YAML (which
 * also reads JSON), since operators write and comment it by hand, as they do LiteLLM's or
 * docker compose's files. Keys are never written in it: `api_key: ${GROQ_API_KEY}` names the
 * variable that holds one, and api_key is the only field that reads a variable (see expand-variables.ts).
 *
 * ```yaml
 * default: fast
 * models:
 *   - name: fast
 *     description: Quick and cheap, for chat
 *     provider: openai
 *     base_url: https://api.openai.com/v1
 *     api_key: ${OPENAI_API_KEY}
 *     model: gpt-4.1-mini
 *     vision: true
 *     context_tokens: 1047576
 *     price: { input: 0.4, output: 1.6, cached_input: 0.1 }
 * ```
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { z } from 'zod';
import { providerIds } from '../model-servers/profiles/index.ts';
import { credentialsProblem, type Environment, withoutCredentials } from '../settings/setting-fields.ts';
import { expandVariables, onlyReference, type SecretPlaces } from '../text/expand-variables.ts';
import type { ModelEntry } from './model-entry.ts';

/**
 * yaml, loaded when a models file is read, not at every start: compiling and running it took about
 * 30 ms of each start (BENCHMARKS.md, issue 30), and most bots have no models file. Loaded from
 * node_modules (a production dependency) by node's own require, since the settings are read
 * synchronously and an `import()` is not.
 */
const loadYaml = (): typeof Yaml => createRequire(import.meta.url)('yaml') as typeof Yaml;

/** Discord shows at most 25 choices for an option; one is kept for "inherit". */
const maxModels = 24;

/** Names are what moderators pick (a command choice): short, and plain. */
const modelName = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/;

const providers = ['auto', ...providerIds] as const;

const entrySchema = z
  .object({
    name: z.string().regex(modelName, 'name: letters, digits and . _ : / -, at most 64 characters'),
    description: z.string().max(100, 'description: at most 100 characters').default(''),
    provider: z
      .enum(providers, { error: `provider must be ${providers.slice(0, -1).join(', ')} or ${providers.at(-1)}` })
      .default('auto'),
    base_url: z
      .url({ protocol: /^https?$/, error: 'base_url must be an http:// or https:// URL' })
      .refine(withoutCredentials, `base_url ${credentialsProblem}: the key goes in api_key`)
      .default('https://api.openai.com/v1'),
    api_key: z.string().optional(),
    model: z.string().min(1, 'model must name the model on its server'),
    temperature: z
      .number({ error: 'temperature must be a number from 0 to 2' })
      .min(0, 'temperature must be a number from 0 to 2')
      .max(2, 'temperature must be a number from 0 to 2')
      .optional(),
    vision: z.boolean().optional(),
    context_tokens: z.number().int().positive().optional(),
    price: z
      .object({ input: z.number().min(0), output: z.number().min(0), cached_input: z.number().min(0).optional() })
      .strict()
      .optional(),
  })
  .strict();

const fileSchema = z
  .object({ default: z.string().optional(), models: z.array(z.unknown()).min(1, 'models must list at least one') })
  .strict();

/** A model's key is its one secret: its other fields are shown in Discord, logged, or sent to its server. */
const secretPlaces: SecretPlaces = {
  holdsSecret: (path) => path.length === 1 && path[0] === 'api_key',
  described: 'api_key',
};

/** What the models share, from the other settings (OPENAI_TEMPERATURE, OPENAI_MAX_RETRIES, …). */
export type SharedModelOptions = Pick<
  ModelEntry['client'],
  'temperature' | 'maxRetries' | 'timeoutSeconds' | 'maxRetryWaitSeconds' | 'toolProtocol'
>;

/**
 * The models of the file and the default's name, or every problem in it. With `only` (the doctor,
 * which checks one model), only that model (the default when its name is null) is checked whole
 * and returned: another model's unset key is no business of a checkup that does not use it.
 */
export function parseModelsFile(
  text: string,
  environment: Environment,
  shared: SharedModelOptions,
  only?: { name: string | null },
): { ok: true; models: ModelEntry[]; defaultName: string; secrets: string[] } | { ok: false; problems: string[] } {
  let document: unknown;
  try {
    document = loadYaml().parse(text);
  } catch (error) {
    return { ok: false, problems: [`is not valid YAML or JSON (${(error as Error).message.split('\n')[0]})`] };
  }
  const file = fileSchema.safeParse(document);
  if (!file.success)
    return {
      ok: false,
      problems: ['must hold "models:", a list of models (name, base_url, model, …), and may name the "default:" one'],
    };
  const problems: string[] = [];
  const models: ModelEntry[] = [];
  const secrets: string[] = [];
  const seen = new Set<string>();
  const names = file.data.models.map((raw) => (raw as { name?: unknown } | null)?.name);
  const target = only ? (only.name ?? file.data.default ?? names[0]) : undefined;
  if (only?.name && !names.includes(only.name))
    return {
      ok: false,
      problems: [
        `has no model named "${only.name}": it has ${names.filter((name) => typeof name === 'string').join(', ')}`,
      ],
    };
  if (file.data.models.length > maxModels)
    problems.push(`lists ${file.data.models.length} models: Discord offers at most ${maxModels} choices`);
  file.data.models.forEach((raw, index) => {
    const rawName = names[index];
    if (target !== undefined && rawName !== target) return;
    const label = typeof rawName === 'string' ? `model "${rawName}"` : `model ${index + 1}`;
    if (typeof rawName === 'string') {
      if (seen.has(rawName.toLowerCase())) {
        problems.push(`${label}: another model has the same name (names are what moderators choose)`);
        return;
      }
      seen.add(rawName.toLowerCase());
    }
    const checked = checkEntry(raw, environment, shared);
    problems.push(...checked.problems.map((problem) => `${label}: ${problem}`));
    if (checked.entry) models.push(checked.entry);
    secrets.push(...checked.secrets);
  });
  // Checked whatever else is wrong, against the names written: one round of fixes, not several.
  if (file.data.default !== undefined && !names.includes(file.data.default))
    problems.push(`default: "${file.data.default}" is not one of the models listed`);
  const defaultName = file.data.default ?? models[0]?.name ?? '';
  return problems.length > 0 ? { ok: false, problems } : { ok: true, models, defaultName, secrets };
}

/**
 * One model of the file, or every problem with it: a field that cannot be used (a key written in
 * the file, a variable not set) is named and left out, and the rest is still checked.
 */
function checkEntry(
  raw: unknown,
  environment: Environment,
  shared: SharedModelOptions,
): { entry: ModelEntry | null; problems: string[]; secrets: string[] } {
  const problems: string[] = [];
  const secrets: string[] = [];
  const fields: Record<string, unknown> = typeof raw === 'object' && raw !== null ? { ...raw } : {};
  const unusable = new Set<string>();
  // The file must not hold a key: it is copied, shared and committed more often than .env.
  if (typeof fields.api_key === 'string' && !onlyReference.test(fields.api_key)) {
    problems.push('api_key must name a variable, as ${GROQ_API_KEY}, not hold the key itself');
    unusable.add('api_key');
  }
  for (const [field, value] of Object.entries(fields)) {
    if (unusable.has(field)) continue;
    const expanded = expandVariables(value, environment, secretPlaces, [field]);
    if (expanded.problems.length > 0) unusable.add(field);
    problems.push(...expanded.problems);
    secrets.push(...expanded.secrets);
    fields[field] = expanded.value;
  }
  for (const field of unusable) delete fields[field];
  const parsed = entrySchema.safeParse(typeof raw === 'object' && raw !== null ? fields : raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (unusable.has(String(issue.path[0]))) continue;
      problems.push(
        issue.code === 'unrecognized_keys'
          ? `unknown ${issue.message.replace(/^Unrecognized keys?: /, 'field ')}`
          : issue.path.length > 0 && !issue.message.startsWith(String(issue.path[0]))
            ? `${issue.path.join('.')}: ${issue.message}`
            : issue.message,
      );
    }
    return { entry: null, problems, secrets };
  }
  const entry = parsed.data;
  if (entry.api_key === undefined && !unusable.has('api_key') && new URL(entry.base_url).hostname === 'api.openai.com')
    problems.push("OpenAI's API needs a key: add api_key: ${OPENAI_API_KEY} (or the variable that holds it)");
  if (problems.length > 0) return { entry: null, problems, secrets };
  return {
    entry: {
      name: entry.name,
      description: entry.description,
      vision: entry.vision ?? null,
      contextTokens: entry.context_tokens ?? null,
      price: entry.price
        ? {
            input: entry.price.input,
            output: entry.price.output,
            ...(entry.price.cached_input === undefined ? {} : { cachedInput: entry.price.cached_input }),
          }
        : null,
      client: {
        ...shared,
        temperature: entry.temperature ?? shared.temperature,
        apiKey: entry.api_key ?? null,
        baseURL: entry.base_url,
        model: entry.model,
        provider: entry.provider,
      },
    },
    problems,
    secrets,
  };
}
