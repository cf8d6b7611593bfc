/**
 * Members' reminders (one-off schedules) posted by the one scheduler against the fake Discord,
 * through the bot's own client and database: failed posts, posts whose answer was lost, a long
 * downtime, two schedulers, and channels that cannot take the reminder. Each test drives passes with
 * `tick()` and checks what they did.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../db/store.ts';
import type { Store } from '../../../db/store.ts';
import type { Logger } from '../../../src/agent/logger.ts';
import type { ConversationMemory } from '../../../src/memory/conversation-memory.ts';
import { maxAttempts, retryDelaysMs } from '../../../src/discord/outbound/reminder-posts.ts';
import { startScheduler } from '../../../src/discord/outbound/scheduler.ts';
import { nonceFor } from '../../../src/discord/outbound/send.ts';
import { startInstance } from '../../../src/run-log/instance.ts';
import { type BotWorld, type LogLine, recordingLogger, startBotWorld } from '../../support/bot-harness.ts';
import { defaultBotPermissions } from '../../support/fake-discord.ts';

let world: BotWorld;
let lines: LogLine[];
beforeEach(async () => {
  const recording = recordingLogger();
  lines = recording.lines;
  // The bot's own scheduler passes only when a test asks (its timer is an hour).
  world = await startBotWorld(
    {},
    {},
    {},
    { databaseTools: true, schedulerIntervalMs: 3_600_000, logger: recording.logger },
  );
});
afterEach(async () => {
  await world.close();
});

const general = () => world.discord.channels.general;
/** A reminder of Bob's, due now: its schedule's id. */
const addDue = (text: string, channelId = general()) =>
  world.store.schedules.addReminder({
    guildId: world.discord.guildId,
    channelId,
    userId: world.discord.users.bob,
    userName: 'Bob',
    text,
    dueAt: Date.now(),
  });
/** The claim of the reminder's one time. */
const runOf = (id: number) => world.store.schedules.runsOf(id)[0];
/** What a pass did with each reminder, by its schedule's id. */
const outcomes = (pass: { scheduled: { scheduleId: number; outcome: string }[] }) =>
  pass.scheduled.map(({ scheduleId, outcome }) => ({ id: scheduleId, outcome }));
const noRoutines = (() => {
  throw new Error('no routine is due in these tests');
}) as unknown as ConversationMemory['recordUserMessage'];
/** Another scheduler over `store`, as another process runs (no routines due in these tests). */
const otherScheduler = (store: Store, instanceId: string, logger: Logger, now?: () => number) =>
  startScheduler(
    {
      client: world.bot.client,
      store,
      // Only reminders are due here: no routine's prompt is stored.
      memory: { ready: () => Promise.resolve(), recordUserMessage: noRoutines },
      queues: world.bot.queues,
      instanceId,
      logger,
      moderatorLog: { record: () => undefined },
    },
    { intervalMs: 3_600_000, now },
  );
/** What the bot sent to post in the channel: one body per request, retries included. */
const postBodies = (channelId = general()) =>
  world.discord.requests
    .filter((request) => request.method === 'POST' && request.path === `/channels/${channelId}/messages`)
    .map((request) => request.body as { content: string; nonce?: string; enforce_nonce?: boolean });
const messagePath = () => new RegExp(`^/channels/${general()}/messages$`);
// discord.js sends a request again at once after a 5xx, three times: four failures fail the post.
const wholePostFails = 4;

describe('reminders posted by the scheduler', () => {
  it('a post that fails is posted on the next pass, once, with the same nonce and enforce_nonce each time', async () => {
    const id = addDue('stretch');
    world.discord.failNext({ method: 'POST', path: messagePath(), status: 500, times: wholePostFails });

    expect(outcomes(await world.bot.scheduler.tick())).toEqual([{ id, outcome: 'will-retry' }]);
    expect(world.discord.botMessages(general())).toHaveLength(0);
    expect(lines.find((line) => line.msg === 'could not post a reminder; will try again')?.fields).toMatchObject({
      reminder: id,
      attempts: 1,
    });

    expect(outcomes(await world.bot.scheduler.tick())).toEqual([{ id, outcome: 'posted' }]);
    const [posted, ...more] = world.discord.botMessages(general());
    expect(more).toEqual([]);
    expect(posted!.content).toBe(`<@${world.discord.users.bob}> reminder: stretch`);
    const bodies = postBodies();
    expect(bodies).toHaveLength(wholePostFails + 1);
    expect(new Set(bodies.map((body) => body.nonce))).toEqual(new Set([nonceFor(`reminder-run:${runOf(id)!.id}`, 0)]));
    expect(bodies.every((body) => body.enforce_nonce === true)).toBe(true);
    expect(runOf(id)).toMatchObject({ attempts: 2, header_id: posted!.id, state: 'posted', error: null });
  });

  it('a post that reached Discord but whose answer was lost is not posted twice: the next attempt finds it in the channel', async () => {
    const id = addDue('stretch');
    world.discord.failNext({ method: 'POST', path: messagePath(), status: 500, times: wholePostFails, applied: true });

    expect(outcomes(await world.bot.scheduler.tick())).toEqual([{ id, outcome: 'will-retry' }]);
    const [first] = world.discord.botMessages(general());
    expect(first).toBeDefined();
    const requestsBefore = postBodies().length;
    expect(outcomes(await world.bot.scheduler.tick())).toEqual([{ id, outcome: 'already-posted' }]);
    expect(world.discord.botMessages(general())).toEqual([first]);
    expect(postBodies()).toHaveLength(requestsBefore);
    expect(runOf(id)).toMatchObject({ state: 'posted', header_id: null });
  });

  it('after a long downtime, a reminder the channel already shows is not posted again; one it does not show is', async () => {
    const shown = addDue('in the channel');
    const missing = addDue('not in the channel');
    // The first attempt at each fails: the first reached Discord, the second did not.
    world.discord.failNext({ method: 'POST', path: messagePath(), status: 500, times: wholePostFails, applied: true });
    world.discord.failNext({ method: 'POST', path: messagePath(), status: 500, times: wholePostFails });
    expect(outcomes(await world.bot.scheduler.tick())).toEqual([
      { id: shown, outcome: 'will-retry' },
      { id: missing, outcome: 'will-retry' },
    ]);
    expect(world.discord.botMessages(general()).map((message) => message.content)).toEqual([
      `<@${world.discord.users.bob}> reminder: in the channel`,
    ]);
    // The bot was down for an hour: its first attempts are older than Discord's nonce memory.
    world.discord.forgetNonces();
    const requestsBefore = postBodies().length;

    expect(outcomes(await world.bot.scheduler.tick())).toEqual([
      { id: shown, outcome: 'already-posted' },
      { id: missing, outcome: 'posted' },
    ]);
    expect(world.discord.botMessages(general()).map((message) => message.content)).toEqual([
      `<@${world.discord.users.bob}> reminder: in the channel`,
      `<@${world.discord.users.bob}> reminder: not in the channel`,
    ]);
    expect(
      postBodies()
        .slice(requestsBefore)
        .map((body) => body.content),
    ).toEqual([`<@${world.discord.users.bob}> reminder: not in the channel`]);
    expect(runOf(shown)).toMatchObject({ state: 'posted', header_id: null });
    expect(
      lines
        .filter((line) => line.msg === 'reminder already in its channel; not posted again')
        .map((line) => line.fields.reminder),
    ).toEqual([shown]);
  });

  it('two schedulers over one database post a due reminder once', async () => {
    const second = openStore(world.databasePath);
    const instance = startInstance(second, 'scheduler');
    const other = otherScheduler(second, instance.id, recordingLogger().logger);
    try {
      await other.tick();
      const ids = [addDue('one'), addDue('two'), addDue('three')];
      const passes = await Promise.all([
        world.bot.scheduler.tick(),
        other.tick(),
        world.bot.scheduler.tick(),
        other.tick(),
      ]);
      const posted = passes.flatMap(outcomes).filter((outcome) => outcome.outcome === 'posted');
      expect(posted.map((outcome) => outcome.id).sort((a, b) => a - b)).toEqual(ids);
      expect(world.discord.botMessages(general())).toHaveLength(3);
      expect(postBodies()).toHaveLength(3);
    } finally {
      other.stop();
      instance.stop();
      second.close();
    }
  });

  it('a reminder whose channel is gone is given up at once, with an error in the log', async () => {
    const id = addDue('stretch', world.discord.channels.random);
    await world.discord.deleteChannel(world.discord.channels.random);
    await world.discord.waitFor(() => !world.bot.client.channels.cache.has(world.discord.channels.random), {
      what: 'the client saw the deletion',
    });

    expect(outcomes(await world.bot.scheduler.tick())).toEqual([{ id, outcome: 'failed' }]);
    expect(lines.find((line) => line.msg === 'reminder given up')).toMatchObject({
      level: 'error',
      fields: { reminder: id, cause: 'the channel no longer exists', attempts: 1 },
    });
    expect(runOf(id)).toMatchObject({ state: 'failed', claimed_by: null, error: 'the channel no longer exists' });
    expect(world.store.schedules.pendingRemindersOf(world.discord.users.bob)).toBe(0);
    expect(outcomes(await world.bot.scheduler.tick())).toEqual([]);
  });

  it('a channel where the bot may not post is tried again, waiting longer each time, then given up', async () => {
    let clock = Date.now();
    const instance = startInstance(world.store, 'scheduler');
    const own = recordingLogger();
    const scheduler = otherScheduler(world.store, instance.id, own.logger, () => clock);
    try {
      await scheduler.tick();
      world.discord.setBotPermissions(defaultBotPermissions & ~PermissionFlagsBits.SendMessages);
      const id = addDue('stretch');
      clock = Date.now();
      const waits: number[] = [];
      for (let attempt = 1; attempt < maxAttempts; attempt++) {
        expect(outcomes(await scheduler.tick())).toEqual([{ id, outcome: 'will-retry' }]);
        const retryAt = runOf(id)!.retry_at!;
        waits.push(retryAt - clock);
        if (retryAt > clock) {
          // Not before its time: a pass a moment early leaves it alone.
          clock = retryAt - 1;
          expect(outcomes(await scheduler.tick())).toEqual([]);
        }
        clock = retryAt;
      }
      expect(waits).toEqual([...retryDelaysMs]);
      expect(waits.every((wait, index) => index === 0 || wait > waits[index - 1]!)).toBe(true);
      expect(outcomes(await scheduler.tick())).toEqual([{ id, outcome: 'failed' }]);
      expect(runOf(id)).toMatchObject({ attempts: maxAttempts, state: 'failed' });
      expect(own.lines.filter((line) => line.level === 'error').map((line) => [line.msg, line.fields.cause])).toEqual([
        ['reminder given up', expect.stringContaining('missing permissions')],
      ]);

      // Given up for good: allowed again, it still is not posted.
      world.discord.setBotPermissions(defaultBotPermissions);
      clock += 24 * 3_600_000;
      expect(outcomes(await scheduler.tick())).toEqual([]);
      expect(postBodies()).toHaveLength(maxAttempts);
      expect(world.discord.botMessages(general())).toEqual([]);
    } finally {
      scheduler.stop();
      instance.stop();
    }
  });
});
