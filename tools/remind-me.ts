import { z } from 'zod';
import type { ScheduleQueries } from '../db/schedules.ts';
import { defineTool } from './define-tool.ts';

const maxPendingPerUser = 20;
const maxDelayDays = 365;

/**
 * A reminder, posted in this conversation when due, mentioning only the person who asked: the
 * member's own one-off schedule, claimed and posted by the one scheduler (src/discord/outbound/scheduled-runs.ts).
 */
export function remindMe(
  schedules: Pick<ScheduleQueries, 'addReminder' | 'pendingRemindersOf'>,
  now: () => number = Date.now,
) {
  return defineTool({
    name: 'remind_me',
    description:
      'Set a reminder for the person who asked: posted here, mentioning them, when it is due. Give either in_minutes or at.',
    parameters: z.object({
      text: z.string().min(1).max(500).describe('What to remind them of.'),
      in_minutes: z
        .number()
        .positive()
        .max(maxDelayDays * 24 * 60)
        .nullable()
        .describe('Minutes from now; null when `at` is given.'),
      at: z.iso
        .datetime({ offset: true })
        .nullable()
        .describe('When, as an ISO 8601 date-time with its offset; null when `in_minutes` is given.'),
    }),
    execute({ text, in_minutes, at }, context) {
      if ((in_minutes === null) === (at === null)) throw new Error('give exactly one of in_minutes or at');
      if (!context.channelId) throw new Error('reminders are posted in Discord; there is no channel here');
      const dueAt = in_minutes !== null ? now() + Math.round(in_minutes * 60_000) : Date.parse(at!);
      if (dueAt <= now()) throw new Error('that time has already passed');
      if (dueAt > now() + maxDelayDays * 86_400_000)
        throw new Error(`reminders can be at most ${maxDelayDays} days ahead`);
      if (schedules.pendingRemindersOf(context.requester.id) >= maxPendingPerUser)
        throw new Error(`${context.requester.displayName} already has ${maxPendingPerUser} reminders waiting`);
      schedules.addReminder({
        guildId: context.guildId,
        channelId: context.channelId,
        userId: context.requester.id,
        userName: context.requester.displayName,
        text,
        dueAt,
      });
      return `Reminder set for ${new Date(dueAt).toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
    },
  });
}
