/**
 * Known secret values taken out of a text (a log line, a reason shown to people), wherever they
 * turn up: the last defence when a rule by name (pino's redacted paths) misses one. Mask before
 * cutting a text short: a secret cut in half can no longer be found.
 */

/** What stands for a secret. */
export const censor = '[redacted]';

/**
 * Secrets shorter than this are not masked: they would rewrite ordinary words of every line (an
 * MCP server's env may hold a short value), and a value that short guards nothing anyway.
 */
const shortestMasked = 8;

/** A function that masks every one of `secrets` in a text (JSON too), or null when none is long enough. */
export function secretMask(secrets: readonly string[]): ((text: string) => string) | null {
  // Longest first, so that a secret holding another is masked whole; each also as JSON escapes it.
  const forms = [...new Set(secrets.filter((secret) => secret.length >= shortestMasked))]
    .sort((a, b) => b.length - a.length)
    .flatMap((secret) => [...new Set([secret, JSON.stringify(secret).slice(1, -1)])]);
  if (forms.length === 0) return null;
  return (text) =>
    forms.reduce((masked, form) => (masked.includes(form) ? masked.split(form).join(censor) : masked), text);
}
