import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config-shape.ts';

/** Paths whose values are replaced before a line is written, wherever they turn up. */
export const redactedPaths = [
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
];

/** What stands for a secret in a log line. */
const censor = '[redacted]';

/**
 * Secrets shorter than this are not masked: they would rewrite ordinary words of every line (an
 * MCP server's env may read a short variable), and a value that short guards nothing anyway.
 */
const shortestMasked = 8;

/**
 * Structured logs (one JSON object a line); `destination` defaults to stdout. The paths above are
 * redacted by name; `secrets` (the settings' secret values) are masked wherever they turn up, in a
 * message, an error or a server's stderr, as the last defence when a name-based rule misses one.
 */
export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  secrets: readonly string[] = [],
): Logger {
  const mask = secretMask(secrets);
  return pino(
    { level, redact: { paths: redactedPaths, censor }, ...(mask ? { hooks: { streamWrite: mask } } : {}) },
    destination,
  );
}

/** A function that masks every one of `secrets` in a JSON line, or null when none is long enough. */
export function secretMask(secrets: readonly string[]): ((line: string) => string) | null {
  // Longest first, so that a secret holding another is masked whole; each also as JSON escapes it.
  const forms = [...new Set(secrets.filter((secret) => secret.length >= shortestMasked))]
    .sort((a, b) => b.length - a.length)
    .flatMap((secret) => [...new Set([secret, JSON.stringify(secret).slice(1, -1)])]);
  if (forms.length === 0) return null;
  return (line) =>
    forms.reduce((masked, form) => (masked.includes(form) ? masked.split(form).join(censor) : masked), line);
}
