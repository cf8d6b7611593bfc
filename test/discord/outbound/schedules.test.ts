/**
 * Scheduled runs (`/schedule`) through the real bot: the real discord.js client against the fake
 * Discord, the real openai client against the scripted model, a real SQLite file. Moderators of a
 * channel set them; each due time runs once, as a normal run, in a new thread named for the
 * schedule or as one message; missed times run once, late; a restart neither loses nor repeats one.
 * Passes are driven with `tick()` (the scheduler's timer is an hour here).
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../db/store.ts';
import type { BotWorld } from '../../support/bot-harness.ts';
import { apiError, finalAnswer, toolCalls } from '../../support/fake-model.ts';
import { command, settings, start, systemPrompt } from '../../support/place-settings-world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

const hour = 3_600_000;
const startWorld = async () => (world = await start({ schedulerIntervalMs: hour }));
const schedule = (subcommand: string, options: Record<string, string | number> = {}, author: 'ada' | 'bob' = 'ada') =>
  command({ name: 'schedule', subcommand, channelId: world.discord.channels.general, options, author });
/** Adds a schedule as Ada (a moderator) and returns its id. */
async function addSchedule(options: Record<string, string> = {}) {
  const added = await schedule('add', {
    name: 'Morning digest',
    prompt: 'What is 6*7?',
    when: 'daily 09:00',
    ...options,
  });
  const id = Number(/Schedule (\d+) set/.exec(added.content)?.[1]);
  expect(id, added.content).toBeGreaterThan(0);
  return id;
}
/** The schedule's time comes (`agoMs` ago): what the clock would do. */
const makeDue = (id: number, agoMs = 0) =>
  world.store.db.prepare('UPDATE schedules SET next_run_at = ? WHERE id = ?').run(Date.now() - agoMs, id);
const runsOf = (id: number) => world.store.schedules.runsOf(id);
const threadNamed = (name: string) =>
  world.discord.waitFor(() => world.discord.threads().find((thread) => thread.name === name), {
    what: `thread ${name}`,
  });

describe('/schedule', () => {
  it('a due schedule runs once as a normal run: a header, a new thread named for it, its tool posts and answer', async () => {
    await startWorld();
    const id = await addSchedule();
    world.model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), finalAnswer('It is 42.'));
    makeDue(id);

    const pass = await world.bot.scheduler.tick();
    expect(pass.scheduled).toEqual([{ scheduleId: id, kind: 'routine', dueAt: expect.any(Number), outcome: 'queued' }]);
    const thread = await threadNamed('Morning digest');
    await world.bot.queues.idle();

    const header = world.discord
      .botMessages(world.discord.channels.general)
      .find((message) => message.id === thread.id)!;
    expect(header.content).toBe(`⏰ Scheduled: **Morning digest** (schedule ${id})`);
    const posts = world.discord.botMessages(thread.id).map((message) => message.content);
    expect(posts.some((content) => content.includes('calculator'))).toBe(true);
    expect(posts.at(-1)).toContain('It is 42.');
    expect(world.model.requests[0]!.messages.at(-1)!.content).toContain('What is 6*7?');
    // Its next time is tomorrow's; another pass starts nothing.
    expect(world.store.schedules.byId(id)!.next_run_at).toBeGreaterThan(Date.now());
    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
    expect(runsOf(id)).toMatchObject([{ state: 'queued', missed: 0 }]);
    expect(world.store.runs.recent(null, 5)).toHaveLength(1);
  });

  it("with member memory on, a scheduled run has none of its creator's facts and no remember tool (it posts for everyone)", async () => {
    await startWorld();
    await settings('member-memory', world.discord.channels.general, { enabled: true });
    world.store.memberFacts.keep(world.discord.guildId, world.discord.users.ada, 'ADASPRIVATEFACT', 50);
    const id = await addSchedule();
    world.model.enqueue(finalAnswer('It is 42.'));
    makeDue(id);
    await world.bot.scheduler.tick();
    await threadNamed('Morning digest');
    await world.bot.queues.idle();
    const [request] = world.model.requests;
    expect(JSON.stringify(request!.messages)).not.toContain('ADASPRIVATEFACT');
    expect((request!.tools ?? []).map((tool) => tool.function.name)).not.toContain('remember');
  });

  it('post_as message: one answer in the channel itself, replying to the header, no thread', async () => {
    await startWorld();
    const id = await addSchedule({ post_as: 'message', name: 'Ping' });
    world.model.enqueue(finalAnswer('Pong.'));
    makeDue(id);

    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'queued' }]);
    await world.bot.queues.idle();
    const posts = await world.discord.waitFor(
      () => {
        const found = world.discord.botMessages(world.discord.channels.general);
        return found.length >= 2 && found;
      },
      { what: 'the header and the answer' },
    );
    expect(posts[0]!.content).toBe(`⏰ Scheduled: **Ping** (schedule ${id})`);
    expect(posts[1]!.content).toContain('Pong.');
    expect(posts[1]!.message_reference?.message_id).toBe(posts[0]!.id);
    expect(world.discord.threads()).toEqual([]);
  });

  it("its own model and persona, among those the place allows, apply to its runs' threads only", async () => {
    world = await start({ schedulerIntervalMs: hour, models: [{ name: 'test-model' }, { name: 'big-model' }] });
    const big = world.modelServers.get('big-model')!;
    const options = { name: 'Pirate', post_as: 'thread', model: 'big-model', persona: 'You speak like a pirate.' };
    expect((await schedule('add', { ...options, post_as: 'message', prompt: 'x', when: 'daily 09:00' })).content).toBe(
      'A model or persona of its own applies to runs in a thread: leave `post_as` as a new thread.',
    );
    const id = await addSchedule(options);
    big.enqueue(finalAnswer('Arr, 42.'));
    makeDue(id);

    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'queued' }]);
    const thread = await threadNamed('Pirate');
    await world.bot.queues.idle();
    expect(world.discord.botMessages(thread.id).at(-1)!.content).toContain('Arr, 42.');
    expect(systemPrompt(big.requests[0])).toContain('You speak like a pirate.');
    expect(world.model.requests).toEqual([]);
  });

  it('a model the channel does not allow is refused', async () => {
    world = await start({ schedulerIntervalMs: hour, models: [{ name: 'test-model' }, { name: 'big-model' }] });
    await settings('model', world.discord.channels.general, { model: 'test-model', only: true });
    const refused = await schedule('add', { name: 'x', prompt: 'y', when: 'daily 09:00', model: 'big-model' });
    expect(refused.content).toBe(
      `The moderators keep <#${world.discord.channels.general}> on **test-model**: a schedule there cannot choose another.`,
    );
  });

  it('several times missed while down run once, saying how late', async () => {
    await startWorld();
    const id = await addSchedule({ when: 'every 1h', name: 'Hourly' });
    world.model.enqueue(finalAnswer('Done late.'));
    // Due on the hour three hours ago (hourly times fall on the hour, so the count does not hang on
    // the clock's minute): that time and the three after it all passed.
    makeDue(id, Date.now() - (Math.floor(Date.now() / hour) * hour - 3 * hour));

    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'queued' }]);
    const thread = await threadNamed('Hourly');
    await world.bot.queues.idle();
    const header = world.discord.messages(world.discord.channels.general).find((message) => message.id === thread.id)!;
    expect(header.content).toMatch(
      /^⏰ Scheduled: \*\*Hourly\*\* \(schedule \d+\)\nLate by about 4 hours: it was due <t:\d+:f>, while I was offline\. 3 later times passed too; this one run stands for them\.$/,
    );
    expect(runsOf(id)).toMatchObject([{ missed: 3 }]);
    expect(world.store.schedules.byId(id)!.next_run_at).toBeGreaterThan(Date.now());
    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
  });

  it('moderators of the channel only: a member is refused add, pause, resume and remove; a moderator pauses, resumes, lists and removes', async () => {
    await startWorld();
    const refused = await schedule('add', { name: 'x', prompt: 'y', when: 'daily 09:00' }, 'bob');
    expect(refused.content).toBe('Schedules are set by moderators of their channel.');
    expect(world.store.schedules.inGuild(world.discord.guildId)).toEqual([]);
    const id = await addSchedule();
    for (const sub of ['pause', 'resume', 'remove'])
      expect((await schedule(sub, { id }, 'bob')).content).toBe(
        `Schedule ${id} is changed by moderators of <#${world.discord.channels.general}>.`,
      );
    expect((await schedule('list', {}, 'bob')).content).toContain('No schedules');
    const suggested = async (author: 'ada' | 'bob') => {
      const interaction = await world.discord.userRunsCommand({
        name: 'schedule',
        subcommand: 'pause',
        author,
        channelId: world.discord.channels.general,
        options: { id: id },
        focused: 'id',
      });
      return interaction.waitForChoices();
    };
    expect(await suggested('ada')).toEqual([{ name: `${id} · Morning digest`, value: id }]);
    expect(await suggested('bob')).toEqual([]);

    await schedule('pause', { id });
    expect(world.store.schedules.byId(id)).toMatchObject({ next_run_at: null, paused_at: expect.any(Number) });
    expect((await schedule('list')).content).toContain('· paused');
    await schedule('resume', { id });
    expect(world.store.schedules.byId(id)!.next_run_at).toBeGreaterThan(Date.now());
    expect((await schedule('remove', { id })).content).toBe(`Schedule ${id} (Morning digest) removed.`);
    expect(world.store.schedules.byId(id)).toBeUndefined();
  });

  it("a member's reminder is their own schedule: moderators can neither list nor pause, resume or remove it", async () => {
    await startWorld();
    const id = world.store.schedules.addReminder({
      guildId: world.discord.guildId,
      channelId: world.discord.channels.general,
      userId: world.discord.users.bob,
      userName: 'Bob',
      text: 'my private plans',
      dueAt: Date.now() + 3_600_000,
    });
    expect((await schedule('list')).content).toContain('No schedules');
    for (const sub of ['pause', 'resume', 'remove'])
      expect((await schedule(sub, { id })).content).toBe('There is no such schedule in this server.');
    expect(world.store.schedules.byId(id)).toMatchObject({ kind: 'reminder', next_run_at: expect.any(Number) });
  });

  it('a member who manages messages in one channel only sets schedules there, and not in another', async () => {
    await startWorld();
    const news = await world.discord.createChannel('news');
    await world.discord.setChannelOverwrites(news, [
      { id: world.discord.users.bob, type: 1, allow: PermissionFlagsBits.ManageMessages, deny: 0n },
    ]);
    const options = { name: 'News', prompt: 'sum up', when: 'weekdays 09:00', time_zone: 'Europe/Paris' };
    expect((await schedule('add', { ...options, channel: news }, 'bob')).content).toMatch(/^Schedule \d+ set: /);
    expect((await schedule('add', options, 'bob')).content).toBe('Schedules are set by moderators of their channel.');
    expect(world.store.schedules.inGuild(world.discord.guildId)).toMatchObject([
      { channel_id: news, cron: '0 9 * * 1-5', time_zone: 'Europe/Paris' },
    ]);
  });

  it('says what is wrong with a time it cannot read, or a time zone that is none', async () => {
    await startWorld();
    expect((await schedule('add', { name: 'x', prompt: 'y', when: 'sometimes' })).content).toMatch(
      /^I read `daily 09:00`/,
    );
    expect(
      (await schedule('add', { name: 'x', prompt: 'y', when: 'daily 09:00', time_zone: 'Mars/Olympus' })).content,
    ).toBe('`Mars/Olympus` is not an IANA time zone (for example `Europe/Paris` or `America/New_York`).');
    expect((await schedule('add', { name: 'x', prompt: 'y', when: '* * * * *' })).content).toBe(
      'A schedule runs at most every 15 minutes.',
    );
    expect(world.store.schedules.inGuild(world.discord.guildId)).toEqual([]);
  });
});

/** Sets #mod-log as the log channel (through /settings, as moderators do); returns its id. */
async function logChannel() {
  const id = await world.discord.createChannel('mod-log');
  await settings('log-channel', world.discord.channels.general, { channel: id });
  return id;
}
const cardTitles = (channelId: string) =>
  world.discord
    .botMessages(channelId)
    .flatMap((message) => (message.embeds as { title: string }[]).map((card) => card.title));

describe('scheduled runs that fail, and whose server is elsewhere', () => {
  it("a run that fails says so in its thread and in the log channel's card", async () => {
    world = await start({ schedulerIntervalMs: hour, logPaceMs: 20 });
    const log = await logChannel();
    const id = await addSchedule({ name: 'Broken' });
    world.model.enqueue(apiError(400, 'This model does not exist.'));
    makeDue(id);

    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'queued' }]);
    const thread = await threadNamed('Broken');
    await world.discord.waitFor(() => world.discord.botMessages(thread.id).length > 0, { what: 'the failure notice' });
    await world.discord.waitFor(() => cardTitles(log).some((title) => title.startsWith('❌ Failed')), {
      what: 'the failed card',
    });
  });

  it('a run whose header cannot be posted is tried again, then given up with a card in the log channel', async () => {
    world = await start({ schedulerIntervalMs: hour, logPaceMs: 20 });
    const log = await logChannel();
    const id = await addSchedule({ name: 'Nowhere' });
    const general = world.discord.channels.general;
    world.discord.failNext({
      method: 'POST',
      path: new RegExp(`^/channels/${general}/messages$`),
      status: 403,
      times: 3,
    });
    makeDue(id);

    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'will-retry' }]);
    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'will-retry' }]);
    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'failed' }]);
    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
    expect(runsOf(id)).toMatchObject([{ state: 'failed', attempts: 3 }]);
    await world.discord.waitFor(() => cardTitles(log).includes('⏰ Scheduled run not started: Nowhere'), {
      what: 'the card of the run given up',
    });
  });

  it("a schedule of a server this process does not hold (another shard's) is left to its shard", async () => {
    await startWorld();
    const id = await addSchedule({ name: 'Elsewhere' });
    world.store.db.prepare("UPDATE schedules SET guild_id = '999999999999999999' WHERE id = ?").run(id);
    makeDue(id);
    const dueAt = world.store.schedules.byId(id)!.next_run_at;

    expect((await world.bot.scheduler.tick()).scheduled).toEqual([]);
    expect(world.store.schedules.byId(id)!.next_run_at).toBe(dueAt);
    expect(runsOf(id)).toEqual([]);
  });
});

describe('scheduled runs across restarts', () => {
  it('a due time claimed by a process killed before it started it is started once by the next', async () => {
    await startWorld();
    const id = await addSchedule({ name: 'Claimed' });
    const dueAt = Date.now() - 1000;
    await world.restart({
      whileDown: async () => {
        // What a process SIGKILLed right after its claim leaves: the run claimed by an instance that is gone.
        const store = openStore(world.databasePath);
        store.db.prepare('UPDATE schedules SET next_run_at = ? WHERE id = ?').run(dueAt, id);
        const run = store.schedules.claim(id, dueAt, dueAt + 86_400_000, 0, Date.now())!;
        store.db
          .prepare("UPDATE schedule_runs SET claimed_by = 'killed-instance', attempts = 1 WHERE id = ?")
          .run(run.id);
        store.close();
        world.model.enqueue(finalAnswer('Once.'));
      },
    });
    // The start's own pass took it; this one finds nothing more.
    await threadNamed('Claimed');
    await world.bot.scheduler.tick();
    await world.bot.queues.idle();
    expect(runsOf(id)).toMatchObject([{ state: 'queued', attempts: 2 }]);
    expect(world.discord.threads().filter((thread) => thread.name === 'Claimed')).toHaveLength(1);
    expect(world.discord.botMessages(world.discord.threads()[0]!.id).at(-1)!.content).toContain('Once.');
  });

  /** Member memory on, Ada (the schedule's creator) with a fact; her schedule's run held at the model. */
  async function scheduledRunHeld(name: string) {
    await startWorld();
    await settings('member-memory', world.discord.channels.general, { enabled: true });
    world.store.memberFacts.keep(world.discord.guildId, world.discord.users.ada, 'ADASPRIVATEFACT', 50);
    const id = await addSchedule({ name });
    world.model.enqueue({ hang: true });
    makeDue(id);
    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'queued' }]);
    await world.discord.waitFor(() => world.model.requests.length === 1, { what: 'the model asked' });
    world.model.enqueue(finalAnswer('Answered after the restart.'));
  }
  /** After the restart: the run answered, and what its model request held. */
  async function afterRestart(name: string) {
    const thread = await threadNamed(name);
    await world.discord.waitFor(
      () => world.discord.botMessages(thread.id).some((message) => message.content.includes('after the restart')),
      { what: 'the answer after the restart', timeoutMs: 20_000 },
    );
    const request = world.model.requests.at(-1)!;
    expect(JSON.stringify(request.messages)).toContain('What is 6*7?');
    expect(JSON.stringify(request.messages)).not.toContain('ADASPRIVATEFACT');
    expect((request.tools ?? []).map((tool) => tool.function.name)).not.toContain('remember');
  }

  it("a scheduled run taken up after a restart is still one: none of its creator's facts, no remember", async () => {
    await scheduledRunHeld('Resumed');
    await world.restart({ graceMs: 0 });
    await afterRestart('Resumed');
  });

  it("a schedule's prompt stored but not yet run when the process died is queued again as a scheduled run", async () => {
    await scheduledRunHeld('Queued again');
    await world.restart({
      graceMs: 0,
      // What a process killed after storing the prompt, before its run was recorded, leaves: no run.
      whileDown: async () => {
        const store = openStore(world.databasePath);
        store.db.exec('DELETE FROM steps; DELETE FROM runs');
        store.close();
      },
    });
    await afterRestart('Queued again');
  });

  it('a scheduled run cut off by a stop is resumed after the restart, not started again', async () => {
    await startWorld();
    const id = await addSchedule({ name: 'Cut off' });
    world.model.enqueue({ hang: true });
    makeDue(id);
    expect((await world.bot.scheduler.tick()).scheduled).toMatchObject([{ outcome: 'queued' }]);
    await world.discord.waitFor(() => world.model.requests.length === 1, { what: 'the model asked' });

    world.model.enqueue(finalAnswer('Answered after all.'));
    await world.restart({ graceMs: 0 });
    const thread = await threadNamed('Cut off');
    await world.discord.waitFor(
      () => world.discord.botMessages(thread.id).some((message) => message.content.includes('Answered after all.')),
      { what: 'the answer after the restart', timeoutMs: 20_000 },
    );
    await world.bot.scheduler.tick();
    await world.bot.queues.idle();
    expect(runsOf(id)).toHaveLength(1);
    expect(world.discord.threads().filter((candidate) => candidate.name === 'Cut off')).toHaveLength(1);
    const headers = world.discord
      .botMessages(world.discord.channels.general)
      .filter((message) => message.content.startsWith('⏰'));
    expect(headers).toHaveLength(1);
  });
});
