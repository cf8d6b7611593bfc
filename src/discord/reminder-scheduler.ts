import type { Client } from 'discord.js';
import type { ReminderQueries } from '../../db/reminders.ts';
import type { Logger } from '../agent/logger.ts';

/**
 * Posts reminders when they fall due, mentioning only the person who asked. Each is claimed in the
 * database before it is posted, so none is ever posted twice (by a restart, or a second process);
 * one that fell due while the bot was down is posted at start-up, saying so.
 */
export function startReminders(client: Client<true>, reminders: ReminderQueries, logger: Logger, intervalMs = 15_000): { stop(): void } {
  const startedAt = Date.now();
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      for (const reminder of reminders.due(Date.now())) {
        if (!reminders.claim(reminder.id)) continue;
        const channel = await client.channels.fetch(reminder.channel_id).catch(() => null);
        if (!channel?.isSendable()) {
          logger.warn({ reminder: reminder.id, channelId: reminder.channel_id }, 'reminder not posted: its channel is gone');
          continue;
        }
        const late = reminder.due_at < startedAt ? ` (late: it was due <t:${Math.floor(reminder.due_at / 1000)}:f>, while I was offline)` : '';
        await channel
          .send({ content: `<@${reminder.user_id}> reminder: ${reminder.text}${late}`.slice(0, 2000), allowedMentions: { parse: [], users: [reminder.user_id] } })
          .catch((error: unknown) => logger.warn({ err: error, reminder: reminder.id }, 'could not post a reminder'));
      }
    } catch (error) {
      logger.error({ err: error }, 'checking reminders failed');
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
