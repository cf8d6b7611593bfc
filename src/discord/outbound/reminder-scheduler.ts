/**
 * Posts reminders when they fall due, mentioning only the person who asked: at least once, and in
 * practice exactly once.
 *
 * - Claim: one UPDATE names this instance as the poster; of two processes only one gets the row.
 *   A claim whose instance is gone (crashed between claim and post) is taken over.
 * - Post: with a nonce derived from the reminder's id and `enforce_nonce`, so the same reminder
 *   posted again (after a crash, or a failure whose request did reach Discord) is dropped by Discord.
 *   That holds only for a few minutes; a reminder first tried longer ago is first looked for in
 *   its channel, and not posted again if it is there.
 * - Delivered once Discord answers with the message (or the channel shows it).
 * - A failed post is tried again, waiting longer each time (`retryDelaysMs`), at most
 *   `maxAttempts` times; a channel that is gone, or a request Discord refuses as malformed, is
 *   given up at once. Each give-up is logged as an error.
 */
import { type Client, DiscordAPIError, RESTJSONErrorCodes, type SendableChannels, SnowflakeUtil } from 'discord.js';
import type { ReminderQueries, ReminderRow } from '../../../db/reminders.ts';
import type { Logger } from '../../agent/logger.ts';
import { BotError } from '../../agent/errors.ts';
import { describeDiscordError } from '../discord-errors.ts';
import { type RepeatedPasses, repeatPasses } from '../../schedules/repeated-passes.ts';
import { nonceFor, piecesNotYetPosted } from './send.ts';

/**
 * How long Discord's nonce check is trusted. Discord: "If true and nonce is present, it will be
 * checked for uniqueness in the past few minutes. If another message was created by the same
 * author with the same nonce, that message will be returned and no new message will be created."
 * (https://discord.com/developers/docs/resources/message#create-message, `enforce_nonce`). "A few
 * minutes" is not a number, so well inside it.
 */
export const nonceTrustedForMs = 60_000;
/** Messages posted this long before the first attempt are looked at too (our clock against Discord's). */
const clockSlackMs = 60_000;
/**
 * After the n-th failed attempt, the next waits `retryDelaysMs[n - 1]`: the next pass, then 1 min,
 * 5 min, 30 min, 2 h. The sixth failure gives up, about 2 h 40 min after the first.
 */
export const retryDelaysMs = [0, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000] as const;
export const maxAttempts = retryDelaysMs.length + 1;

/** What a pass did with one reminder it found due. */
type ReminderOutcome =
  | 'posted'
  /** Found in its channel already (posted by an attempt whose answer was lost); not posted again. */
  | 'already-posted'
  | 'will-retry'
  | 'given-up'
  /** Another instance claimed it between the look and the claim. */
  | 'claimed-elsewhere';

/** One pass over the due reminders: each one looked at, and what came of it. */
export interface ReminderPass {
  outcomes: { id: number; outcome: ReminderOutcome }[];
}

/** The running scheduler of reminders alone (the bot's is scheduler.ts's, which runs this pass among its own). */
export type ReminderScheduler = RepeatedPasses<ReminderPass>;

export interface ReminderSchedulerOptions {
  /** How often due reminders are looked for. */
  intervalMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
}

export function startReminders(
  client: Client<true>,
  reminders: ReminderQueries,
  instanceId: string,
  logger: Logger,
  { intervalMs = 15_000, now = Date.now }: ReminderSchedulerOptions = {},
): ReminderScheduler {
  return repeatPasses(reminderPass(client, reminders, instanceId, logger, now), intervalMs);
}

/** One pass over the due reminders, as the scheduler's loop runs it (scheduler.ts). */
export function reminderPass(
  client: Client<true>,
  reminders: ReminderQueries,
  instanceId: string,
  logger: Logger,
  now: () => number,
): () => Promise<ReminderPass> {
  const poster = new ReminderPoster(client, reminders, instanceId, logger, now);
  return async () => {
    const outcomes: ReminderPass['outcomes'] = [];
    try {
      for (const reminder of reminders.due(now()))
        outcomes.push({ id: reminder.id, outcome: await poster.post(reminder) });
    } catch (error) {
      logger.error({ err: error }, 'checking reminders failed');
    }
    return { outcomes };
  };
}

/** Posts one due reminder: claim, look for an earlier post when the nonce no longer covers it, post, record. */
class ReminderPoster {
  private readonly startedAt: number;

  constructor(
    private readonly client: Client<true>,
    private readonly reminders: ReminderQueries,
    private readonly instanceId: string,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {
    this.startedAt = now();
  }

  async post(due: ReminderRow): Promise<ReminderOutcome> {
    const reminder = this.reminders.claim(due.id, this.instanceId, this.render(due), this.now());
    if (!reminder) return 'claimed-elsewhere';
    try {
      // Each crash between a claim and its post counts an attempt too: a reminder whose post brings
      // the process down is not posted at every start for ever.
      if (reminder.attempts > maxAttempts)
        throw new ReminderNotPostable('reminder-attempts-exhausted', `no post confirmed after ${maxAttempts} attempts`);
      const channel = await this.client.channels.fetch(reminder.channel_id);
      if (!channel?.isSendable())
        throw new ReminderNotPostable('reminder-channel-not-sendable', 'its channel cannot take messages');
      if (await this.alreadyPosted(reminder, channel)) return 'already-posted';
      const message = await channel.send({
        content: reminder.content!,
        nonce: nonceFor(`reminder:${reminder.id}`, 0),
        enforceNonce: true,
        allowedMentions: { parse: [], users: [reminder.user_id] },
      });
      this.reminders.delivered(reminder.id, message.id, this.now());
      this.logger.info(
        { reminder: reminder.id, attempts: reminder.attempts, messageId: message.id },
        'reminder posted',
      );
      return 'posted';
    } catch (error) {
      return this.retryOrGiveUp(reminder, error);
    }
  }

  /** The text, with the person's mention (its only ping) and, when it comes late, when it was due. */
  private render(reminder: ReminderRow): string {
    const late =
      reminder.due_at < this.startedAt
        ? ` (late: it was due <t:${Math.floor(reminder.due_at / 1000)}:f>, while I was offline)`
        : '';
    // The text is at most 500 characters (remind_me's schema): the whole stays under Discord's 2,000.
    return `<@${reminder.user_id}> reminder: ${reminder.text}${late}`;
  }

  /** Past the nonce's few minutes, an earlier attempt's post is looked for in the channel (and recorded if found). */
  private async alreadyPosted(reminder: ReminderRow, channel: SendableChannels): Promise<boolean> {
    const firstAttemptAt = reminder.first_attempt_at!;
    if (reminder.attempts <= 1 || this.now() - firstAttemptAt <= nonceTrustedForMs) return false;
    const after = SnowflakeUtil.generate({ timestamp: firstAttemptAt - clockSlackMs }).toString();
    if ((await piecesNotYetPosted(channel, reminder.content!, after, this.client.user.id)).length > 0) return false;
    this.reminders.delivered(reminder.id, null, this.now());
    this.logger.info(
      { reminder: reminder.id, attempts: reminder.attempts },
      'reminder already in its channel; not posted again',
    );
    return true;
  }

  private retryOrGiveUp(reminder: ReminderRow, error: unknown): ReminderOutcome {
    const cause = describeDiscordError(error);
    const fields = {
      err: error,
      reminder: reminder.id,
      channelId: reminder.channel_id,
      userId: reminder.user_id,
      attempts: reminder.attempts,
      cause,
    };
    if (isFinal(error) || reminder.attempts >= maxAttempts) {
      this.reminders.giveUp(reminder.id, this.instanceId, cause, this.now());
      this.logger.error(fields, 'reminder given up');
      return 'given-up';
    }
    const retryAt = this.now() + retryDelaysMs[reminder.attempts - 1]!;
    this.reminders.retryLater(reminder.id, this.instanceId, retryAt, cause);
    this.logger.warn(
      { ...fields, retryAt: new Date(retryAt).toISOString() },
      'could not post a reminder; will try again',
    );
    return 'will-retry';
  }
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
