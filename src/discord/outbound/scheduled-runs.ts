/**
 * Scheduled runs (`/schedule`): each due time becomes a normal run on its conversation's queue; a
 * member's reminder (`remind_me`, a one-off schedule) is claimed the same way and posted
 * (reminder-posts.ts). Comes from: the scheduler's pass (scheduler.ts). Does, per due schedule of a
 * server this process holds (its shard has the guild; a reminder set in a DM: any process of this
 * database, which is shard 0's):
 *
 * 1. Claim: in one transaction, move the schedule's next time past now and insert its
 *    `schedule_runs` row, keyed (schedule, due time) UNIQUE: of two processes, or a process and
 *    itself after a restart, one claims it. Several times missed in one downtime are one claim.
 * 2. Start: post a header in the channel (with a nonce from the run's id and `enforce_nonce`, so an
 *    attempt repeated after a crash is dropped by Discord), make the thread named for the schedule
 *    (or not: one message), store the prompt as the conversation's message and mark the run
 *    queued, in one transaction. A crash before that leaves the run claimed, and a later pass of
 *    any live process takes it over and starts it again, each step being one it can repeat.
 * 3. Queue: the message goes on its conversation's queue like a member's (answer-new-messages.ts),
 *    so the seats, tool posts, limits, the log channel card and resumption after a crash apply. Once
 *    stored, a crash leaves a message no run answered, which the next start queues (recovery.ts).
 */
import type { Client, Message, SendableChannels } from 'discord.js';
import type { NewSettingChange } from '../../../db/place-settings.ts';
import type { RoutineRow, ScheduleRow, ScheduleRunRow } from '../../../db/schedules.ts';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../agent/logger.ts';
import { discordConversationKey } from '../../conversation/conversation-keys.ts';
import type { ConversationQueues } from '../../conversation/conversation-queues.ts';
import { messageWork, type QueuedWork } from '../../conversation/queued-work.ts';
import type { ConversationMemory } from '../../memory/conversation-memory.ts';
import { settingKeys } from '../../place-settings/effective-settings.ts';
import { nextTimeAfter } from '../../schedules/schedule-times.ts';
import { formatWait } from '../../text/duration.ts';
import { describeDiscordError } from '../discord-errors.ts';
import type { ModeratorLog } from '../moderator-log/moderator-log.ts';
import { postReminder, type ReminderOutcome } from './reminder-posts.ts';
import { nonceFor } from './send.ts';

/** A run this late or later says so. */
const lateAfterMs = 60_000;
/** Attempts at starting one due time (posting its header, making its thread) before it is given up. */
const maxStartAttempts = 3;
/** Due times counted at most, when a long downtime missed many. */
const maxMissedCounted = 1_000;

/** What a pass did with one due time. */
export interface ScheduledOutcome {
  scheduleId: number;
  dueAt: number;
  kind: ScheduleRow['kind'];
  outcome: 'queued' | 'already-queued' | ReminderOutcome;
}

export interface ScheduledRunDependencies {
  client: Client<true>;
  store: Pick<Store, 'schedules' | 'conversations' | 'placeSettings' | 'db'>;
  memory: Pick<ConversationMemory, 'recordUserMessage' | 'ready'>;
  queues: Pick<ConversationQueues<QueuedWork>, 'push'>;
  instanceId: string;
  logger: Logger;
  /** Where a run given up is told to moderators (the server's log channel). */
  moderatorLog: Pick<ModeratorLog, 'record'>;
  now: () => number;
}

/** One pass: claims the due times of this process's servers, then starts every claimed run it may take. */
export async function scheduledRunPass(deps: ScheduledRunDependencies): Promise<ScheduledOutcome[]> {
  const { store, client, now } = deps;
  const holds = (guildId: string | null) => guildId === null || client.guilds.cache.has(guildId);
  for (const schedule of store.schedules.due(now())) if (holds(schedule.guild_id)) claimDueTime(deps, schedule);
  await deps.memory.ready();
  const outcomes: ScheduledOutcome[] = [];
  for (const open of store.schedules.open(now())) {
    const schedule = store.schedules.byId(open.schedule_id);
    if (schedule && !holds(schedule.guild_id)) continue; // Another shard's.
    const run = store.schedules.take(open.id, deps.instanceId, now());
    if (!run) continue;
    const outcome =
      schedule?.kind === 'reminder' ? await postReminder(deps, run, schedule) : await startRun(deps, run, schedule);
    outcomes.push({ scheduleId: run.schedule_id, kind: schedule?.kind ?? 'routine', dueAt: run.due_at, outcome });
  }
  return outcomes;
}

/** Claims the schedule's due time, counting the later ones already past (run by this one run); a reminder's once. */
function claimDueTime(deps: ScheduledRunDependencies, schedule: ScheduleRow): void {
  const dueAt = schedule.next_run_at!;
  const now = deps.now();
  if (schedule.kind === 'reminder') {
    deps.store.schedules.claim(schedule.id, dueAt, null, 0, now);
    return;
  }
  const times = { cron: schedule.cron, timeZone: schedule.time_zone };
  let missed = 0;
  let next = nextTimeAfter(times, dueAt);
  while (next !== null && next <= now && missed < maxMissedCounted) {
    missed += 1;
    next = nextTimeAfter(times, next);
  }
  if (next !== null && next <= now) next = nextTimeAfter(times, now);
  deps.store.schedules.claim(schedule.id, dueAt, next, missed, now);
}

/** Posts the run's header (and thread), stores its prompt and queues it; or notes why not. */
async function startRun(
  deps: ScheduledRunDependencies,
  run: ScheduleRunRow,
  schedule: RoutineRow | undefined,
): Promise<ScheduledOutcome['outcome']> {
  const fields = { scheduleRun: run.id, schedule: run.schedule_id, attempts: run.attempts };
  if (!schedule) {
    deps.store.schedules.failed(run.id, 'the schedule was removed');
    return 'failed';
  }
  try {
    const channel = await deps.client.channels.fetch(schedule.channel_id);
    if (!channel?.isSendable() || channel.isDMBased()) throw new Error('its channel cannot take messages');
    const header = await postHeader(deps, schedule, run, channel);
    const threadId = schedule.post_as === 'thread' ? await threadOf(header, schedule.name) : null;
    return storeAndQueue(deps, schedule, run, header, threadId);
  } catch (error) {
    const cause = describeDiscordError(error);
    if (run.attempts >= maxStartAttempts) {
      deps.store.db.transaction(() => {
        deps.store.schedules.failed(run.id, cause);
        const { id: scheduleId, name, channel_id: channelId } = schedule;
        deps.moderatorLog.record(schedule.guild_id, {
          kind: 'schedule-failed',
          scheduleId,
          name,
          channelId,
          reason: cause,
        });
      })();
      deps.logger.error({ ...fields, err: error, cause }, 'scheduled run given up');
      return 'failed';
    }
    deps.store.schedules.release(run.id, deps.instanceId, cause);
    deps.logger.warn({ ...fields, err: error, cause }, 'could not start a scheduled run; will try again');
    return 'will-retry';
  }
}

/** The header every attempt posts alike: the schedule's name, and how late it is when it is. */
function postHeader(
  deps: ScheduledRunDependencies,
  schedule: RoutineRow,
  run: ScheduleRunRow,
  channel: SendableChannels,
): Promise<Message> {
  return channel.send({
    content: headerText(schedule, run, deps.now()),
    nonce: nonceFor(`schedule-run:${run.id}`, 0),
    enforceNonce: true,
    allowedMentions: { parse: [] },
  });
}

/** `⏰ Scheduled: name`, and a line saying how late it is (and how many times it stands for). */
function headerText(schedule: Pick<ScheduleRow, 'name' | 'id'>, run: ScheduleRunRow, now: number): string {
  const head = `⏰ Scheduled: **${schedule.name}** (schedule ${schedule.id})`;
  const lateBy = now - run.due_at;
  if (lateBy < lateAfterMs) return head;
  const missed =
    run.missed > 0
      ? ` ${run.missed} later time${run.missed === 1 ? '' : 's'} passed too; this one run stands for them.`
      : '';
  return `${head}\nLate by about ${formatWait(lateBy / 1000)}: it was due <t:${Math.floor(run.due_at / 1000)}:f>, while I was offline.${missed}`;
}

/** The thread made from the header, or the one an earlier attempt made (Discord allows one per message). */
async function threadOf(header: Message, name: string): Promise<string> {
  if (header.hasThread && header.thread) return header.thread.id;
  try {
    return (await header.startThread({ name: name.slice(0, 100), autoArchiveDuration: 1440 })).id;
  } catch (error) {
    // "A thread has already been created for this message" (160004): the thread an attempt cut off by a crash made.
    const existing = await header.client.channels.fetch(header.id).catch(() => null);
    if (existing?.isThread()) return existing.id;
    throw error;
  }
}

/** The schedule's model and persona as its run's thread's own settings, set by its creator. */
function threadSettings(schedule: RoutineRow, threadId: string): NewSettingChange[] {
  const set = [
    [settingKeys.model, schedule.model],
    [settingKeys.persona, schedule.persona],
  ] as const;
  return set.flatMap(([key, value]) =>
    value === null
      ? []
      : [
          {
            guildId: schedule.guild_id,
            scope: 'thread' as const,
            scopeId: threadId,
            key,
            value,
            changedById: schedule.created_by_id,
            changedByName: schedule.created_by_name,
          },
        ],
  );
}

/** Stores the prompt as the conversation's message and marks the run queued, in one transaction; then queues it. */
function storeAndQueue(
  deps: ScheduledRunDependencies,
  schedule: RoutineRow,
  run: ScheduleRunRow,
  header: Message,
  threadId: string | null,
): ScheduledOutcome['outcome'] {
  const stored = deps.store.db.transaction(() => {
    const conversation = deps.store.conversations.ensure({
      key: discordConversationKey(header.id),
      title: schedule.name,
      guildId: schedule.guild_id,
      channelId: schedule.channel_id,
      threadId,
      startedById: schedule.created_by_id,
      startedByName: schedule.created_by_name,
    });
    if (threadId) deps.store.placeSettings.change(threadSettings(schedule, threadId));
    const storedId = deps.memory.recordUserMessage(conversation, {
      authorId: schedule.created_by_id,
      authorName: schedule.created_by_name,
      content: schedule.prompt,
      discordMessageId: header.id,
      images: [],
      scheduled: true,
    });
    deps.store.schedules.queued(run.id, header.id);
    return { conversation, storedId };
  })();
  // Stored already by an attempt cut off by a crash: the start's recovery queued it.
  if (stored.storedId === null) return 'already-queued';
  const requester = { id: schedule.created_by_id, displayName: schedule.created_by_name, isModerator: false };
  deps.queues.push(stored.conversation.key, {
    ...messageWork(stored.storedId, { messageId: header.id, channelId: schedule.channel_id }, requester),
    scheduled: true,
  });
  deps.logger.info(
    { scheduleRun: run.id, schedule: schedule.id, conversation: stored.conversation.key },
    'scheduled run queued',
  );
  return 'queued';
}
