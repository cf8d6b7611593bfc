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

/** Structured logs (one JSON object a line); `destination` defaults to stdout. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: redactedPaths, censor: '[redacted]' } }, destination);
}
