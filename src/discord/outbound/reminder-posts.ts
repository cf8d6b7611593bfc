/**
 * A member's reminder (`remind_me`, a one-off schedule of kind 'reminder') posted when its claimed
 * time is taken by the scheduler's pass (scheduled-runs.ts), mentioning only that member: at least
 * once, and in practice exactly once.
 *
 * - Claim: the pass claims the due time as any schedule's (one `schedule_runs` row per schedule and
 *   time) and takes it for this instance; a claim whose instance is gone is taken over.
 * - Post: the text of the first attempt (kept on the run), with a nonce from the run's id and
 *   `enforce_nonce`, so an attempt repeated soon after (a crash, a failure whose request did reach
 *   Discord) is dropped by Discord. That holds only for "the past few minutes", so every attempt after
 *   the first looks for the text in its channel first, and does not post it again if it is there.
 * - Posted once Discord answers with the message (or the channel shows it).
 * - A failed post is tried again, waiting longer each time (`retryDelaysMs`), at most `maxAttempts`
 *   times; a channel that is gone, or a request Discord refuses as malformed, is given up at once.
 *   Each give-up is logged as an error.
 */
import { type Client, DiscordAPIError, RESTJSONErrorCodes, type SendableChannels, SnowflakeUtil } from 'discord.js';
import type { ReminderScheduleRow, ScheduleRunRow } from '../../../db/schedules.ts';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import { BotError } from '../../agent/errors.ts';
import { describeDiscordError } from '../discord-errors.ts';
import { nonceFor, piecesNotYetPosted } from './send.ts';

/** Messages posted this long before the first attempt are looked at too (our clock against Discord's). */
const clockSlackMs = 60_000;
/** A reminder this late or later says so. */
const lateAfterMs = 60_000;
/**
 * After the n-th failed attempt, the next waits `retryDelaysMs[n - 1]`: the next pass, then 1 min,
 * 5 min, 30 min, 2 h. The sixth failure gives up, about 2 h 40 min after the first.
 */
export const retryDelaysMs = [0, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000] as const;
export const maxAttempts = retryDelaysMs.length + 1;

/** What an attempt at a reminder's time came to. */
export type ReminderOutcome =
  | 'posted'
  /** Found in its channel already (posted by an attempt whose answer was lost); not posted again. */
  | 'already-posted'
  | 'will-retry'
  | 'failed';

export interface ReminderPostDependencies {
  client: Client<true>;
  store: Pick<Store, 'schedules'>;
  instanceId: string;
  logger: Logger;
  now: () => number;
}

/** Posts the reminder of a claimed time this instance took: looks for an earlier attempt's post, posts, records. */
export async function postReminder(
  deps: ReminderPostDependencies,
  run: ScheduleRunRow,
  reminder: ReminderScheduleRow,
): Promise<ReminderOutcome> {
  const content = deps.store.schedules.keepText(run.id, reminderText(reminder, run));
  try {
    // Each crash between a claim and its post counts an attempt too: a reminder whose post brings
    // the process down is not posted at every start for ever.
    if (run.attempts > maxAttempts)
      throw new ReminderNotPostable('reminder-attempts-exhausted', `no post confirmed after ${maxAttempts} attempts`);
    const channel = await deps.client.channels.fetch(reminder.channel_id);
    if (!channel?.isSendable())
      throw new ReminderNotPostable('reminder-channel-not-sendable', 'its channel cannot take messages');
    if (await alreadyPosted(deps, run, content, channel)) return 'already-posted';
    const message = await channel.send({
      content,
      nonce: nonceFor(`reminder-run:${run.id}`, 0),
      enforceNonce: true,
      allowedMentions: { parse: [], users: [reminder.created_by_id] },
    });
    deps.store.schedules.posted(run.id, message.id);
    deps.logger.info({ reminder: reminder.id, attempts: run.attempts, messageId: message.id }, 'reminder posted');
    return 'posted';
  } catch (error) {
    return retryOrGiveUp(deps, run, reminder, error);
  }
}

/** The text, with the member's mention (its only ping) and, when it comes late, when it was due. */
function reminderText(reminder: ReminderScheduleRow, run: ScheduleRunRow): string {
  const late =
    run.claimed_at - run.due_at >= lateAfterMs
      ? ` (late: it was due <t:${Math.floor(run.due_at / 1000)}:f>, while I was offline)`
      : '';
  // The text is at most 500 characters (remind_me's schema): the whole stays under Discord's 2,000.
  return `<@${reminder.created_by_id}> reminder: ${reminder.prompt}${late}`;
}

/** After a first attempt, an earlier attempt's post is looked for in the channel (and recorded if found). */
async function alreadyPosted(
  deps: ReminderPostDependencies,
  run: ScheduleRunRow,
  content: string,
  channel: SendableChannels,
): Promise<boolean> {
  if (run.attempts <= 1) return false;
  const after = SnowflakeUtil.generate({ timestamp: run.claimed_at - clockSlackMs }).toString();
  if ((await piecesNotYetPosted(channel, content, after, deps.client.user.id)).length > 0) return false;
  deps.store.schedules.posted(run.id, null);
  deps.logger.info(
    { reminder: run.schedule_id, attempts: run.attempts },
    'reminder already in its channel; not posted again',
  );
  return true;
}

function retryOrGiveUp(
  deps: ReminderPostDependencies,
  run: ScheduleRunRow,
  reminder: ReminderScheduleRow,
  error: unknown,
): ReminderOutcome {
  const cause = describeDiscordError(error);
  const fields = {
    err: error,
    reminder: reminder.id,
    channelId: reminder.channel_id,
    userId: reminder.created_by_id,
    attempts: run.attempts,
    cause,
  };
  if (isFinal(error) || run.attempts >= maxAttempts) {
    deps.store.schedules.failed(run.id, cause);
    deps.logger.error(fields, 'reminder given up');
    return 'failed';
  }
  const retryAt = deps.now() + retryDelaysMs[run.attempts - 1]!;
  deps.store.schedules.retryLater(run.id, deps.instanceId, retryAt, cause);
  deps.logger.warn(
    { ...fields, retryAt: new Date(retryAt).toISOString() },
    'could not post a reminder; will try again',
  );
  return 'will-retry';
}

/** Faults of the reminder itself, not of Discord's answer: never worth another attempt. */
class ReminderNotPostable extends BotError {}

/**
 * Failures that the same request will meet again: the channel is gone, or Discord refuses the
 * request itself. Missing permissions are not among them (a moderator may fix them), nor are
 * server errors, rate limits and network faults.
 */
function isFinal(error: unknown): boolean {
  if (error instanceof ReminderNotPostable) return true;
  if (!(error instanceof DiscordAPIError)) return false;
  if (error.code === RESTJSONErrorCodes.UnknownChannel) return true;
  return error.status >= 400 && error.status < 500 && error.status !== 403 && error.status !== 429;
}
