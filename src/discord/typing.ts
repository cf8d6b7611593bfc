import type { SendableChannels } from 'discord.js';
import type { Logger } from '../agent/logger.ts';

/** How often the typing indicator is renewed: it lasts about ten seconds. */
const typingRenewMs = 9_000;

/** Shows "Bot is typing…" now, and again every few seconds until stopped. */
export function keepTyping(channel: SendableChannels, logger: Logger): { stop(): void } {
  const type = () =>
    channel
      .sendTyping()
      .catch((error: unknown) => logger.debug({ err: error, channelId: channel.id }, 'typing indicator failed'));
  void type();
  const timer = setInterval(() => void type(), typingRenewMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
