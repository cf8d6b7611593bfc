/**
 * An MCP server's log messages (`notifications/message`) in the bot's log, at the level they map
 * to, masked, cut short, and never a flood (the limit stderr lines have).
 * https://modelcontextprotocol.io/specification/2025-06-18/server/utilities/logging
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type LoggingLevel, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../agent/logger.ts';
import { truncate } from '../text/truncate.ts';
import { withinLogLimit } from './stderr-log.ts';

/** The protocol's eight levels (RFC 5424's) on the bot's four. */
const levels: Record<LoggingLevel, keyof Logger> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};
/** A message's data (any JSON) is cut to this length in the log. */
const maxMessageLength = 500;

export function logServerMessages(
  client: Client,
  logger: Logger,
  serverName: string,
  masked: (text: string) => string,
): void {
  const limited = withinLogLimit(logger, serverName, 'MCP server log: messages left out of the log');
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    const { level, logger: source, data } = notification.params;
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    // `mcpLevel`, not `level`: pino writes its own level under that key.
    const fields = { mcpServer: serverName, mcpLevel: level, ...(source ? { mcpLogger: source } : {}) };
    limited(() =>
      logger[levels[level] ?? 'info'](
        { ...fields, data: truncate(masked(text ?? ''), maxMessageLength) },
        'MCP server log',
      ),
    );
  });
}
