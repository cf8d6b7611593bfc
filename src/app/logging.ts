import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../settings/config-shape.ts';
import { censor, secretMask } from '../text/mask-secrets.ts';

/** Paths whose values are replaced before a line is written, wherever they turn up. */
const redactedPaths = [
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
];

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
