/**
 * Known secret values taken out of a text (a log line, a reason shown to people, a tool's result),
 * wherever they turn up: the last defence when a rule by name (pino's redacted paths) misses one.
 * Mask before cutting a text short: a secret cut in half can no longer be found.
 *
 * What counts as a secret, so that masking never eats ordinary words (docs/operating.md, "Logs"):
 * - at least 8 characters: a shorter value guards nothing, and masking it would rewrite words;
 * - never one of the placeholders local model servers document for "no key" (`placeholderKeys`):
 *   with OPENAI_API_KEY=none, "none needed" must stay "none needed";
 * - whole tokens only: a value is masked where no letter or digit touches it on either side, so a
 *   secret is found in `Bearer …`, `?key=…&`, JSON or a URL, and never inside a longer word.
 */

/** What stands for a secret. */
export const censor = '[redacted]';

const shortestMasked = 8;

/**
 * The keys local servers' docs tell people to set when the server needs none, compared without case:
 * Ollama's `ollama` (https://github.com/ollama/ollama/blob/main/docs/openai.md), LM Studio's
 * `lm-studio` (https://lmstudio.ai/docs/app/api/endpoints/openai), llama.cpp's `sk-no-key-required`
 * (tools/server/README.md), vLLM's `EMPTY` and `token-abc123`
 * (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html), and the usual stand-ins.
 */
const placeholderKeys = new Set([
  'none',
  'ollama',
  'lm-studio',
  'sk-no-key-required',
  'empty',
  'token-abc123',
  'not-needed',
  'no-key',
  'dummy',
  'sk-dummy',
  'placeholder',
]);

/** Whether a configured value is treated as a secret (see the rule above). */
export function isSecret(value: string): boolean {
  return value.length >= shortestMasked && !placeholderKeys.has(value.toLowerCase());
}

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A function that masks every one of `secrets` in a text (JSON too), or null when none is a secret. */
export function secretMask(secrets: readonly (string | null | undefined)[]): ((text: string) => string) | null {
  // Longest first, so that a secret holding another is masked whole; each also as JSON escapes it.
  const forms = [...new Set(secrets.filter((secret): secret is string => !!secret && isSecret(secret)))]
    .sort((a, b) => b.length - a.length)
    .flatMap((secret) => [...new Set([secret, JSON.stringify(secret).slice(1, -1)])]);
  if (forms.length === 0) return null;
  const pattern = new RegExp(`(?<![A-Za-z0-9])(?:${forms.map(escapeForPattern).join('|')})(?![A-Za-z0-9])`, 'g');
  return (text) => (forms.some((form) => text.includes(form)) ? text.replace(pattern, censor) : text);
}

/** `secretMask`, or the text as it is when there is no secret to mask. */
export function maskWith(secrets: readonly (string | null | undefined)[]): (text: string) => string {
  return secretMask(secrets) ?? ((text) => text);
}
