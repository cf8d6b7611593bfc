import { Routes } from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import type { TargetToBe } from '../outbound/posting-channel.ts';

/** How often the typing indicator is renewed: it lasts about ten seconds. */
const typingRenewMs = 9_000;

/**
 * Shows "Bot is typing…" once the target is known, and again every few seconds until stopped.
 * Stopping also withdraws an indicator still waiting in discord.js's queue (behind Discord's rate
 * limits under load): sent after the answer, it would show the bot typing for ten seconds more.
 */
export function keepTyping(target: TargetToBe, logger: Logger): { stop(): void } {
  const stopped = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  const type = async () => {
    const { channel } = await target;
    if (stopped.signal.aborted) return;
    // channel.sendTyping() takes no signal; the same route through the client's REST does
    // (@discordjs/rest: "The signal to abort the queue entry or the REST call").
    await channel.client.rest.post(Routes.channelTyping(channel.id), { signal: stopped.signal });
  };
  const typeOnce = () =>
    void type().catch((error: unknown) => {
      if (!stopped.signal.aborted) logger.debug({ err: error }, 'typing indicator failed');
    });
  typeOnce();
  void Promise.resolve(target)
    .then(() => {
      if (stopped.signal.aborted) return;
      timer = setInterval(typeOnce, typingRenewMs);
      timer.unref();
    })
    .catch(() => {});
  return {
    stop: () => {
      stopped.abort();
      if (timer) clearInterval(timer);
    },
  };
}
