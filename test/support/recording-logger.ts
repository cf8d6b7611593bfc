/** A logger for tests that check what an operator would read, or wait for what the code reports. */
import type { Logger } from '../../src/agent/logger.ts';

/** One line a `recordingLogger` kept. */
export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string | undefined;
  fields: Record<string, unknown>;
  /** When it was logged (`performance.now()`), to compare with other lines, never with a wall-clock limit. */
  at: number;
}

/** A logger that keeps every line. */
export function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (fields: object, msg?: string) =>
    void lines.push({ level, msg, fields: fields as Record<string, unknown>, at: performance.now() });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}
