/**
 * The moderators' log channel (`/settings log-channel`), end to end: the real client against the
 * fake Discord, the real openai client against the scripted model, a real SQLite file. A run's card
 * and its "Steps" button; a burst; a channel the bot cannot post in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BotWorld } from '../../support/bot-harness.ts';
import { mentionOf, recordingLogger, startBotWorld } from '../../support/bot-harness.ts';
import { PermissionFlagsBits } from 'discord.js';
import { defaultBotPermissions, type FakeMessage } from '../../support/fake-discord.ts';
import { apiError, finalAnswer, reportingCache, toolCalls } from '../../support/fake-model.ts';
import { ask, command, moderatorRole, settings, start, worldHolder } from '../../support/place-settings-world.ts';
import { moderationsAt, startFakeContentCheck } from '../../support/fake-content-check.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

interface Card {
  title: string;
  description?: string;
  color: number;
  fields?: { name: string; value: string }[];
  footer?: { text: string };
}
const cardsOf = (messages: readonly FakeMessage[]) => messages.flatMap((message) => message.embeds as Card[]);
const logPosts = (channelId: string) => world.discord.botMessages(channelId);
/** Waits until the log channel shows cards matching `title` `count` times; returns every card there. */
const waitForCards = (channelId: string, title: RegExp, count = 1) =>
  world.discord.waitFor(
    () => {
      const cards = cardsOf(logPosts(channelId));
      return cards.filter((card) => title.test(card.title)).length >= count && cards;
    },
    { what: `${count} cards "${title}" in the log channel`, timeoutMs: 60_000 },
  );
/** A bot whose moderators have set #mod-log as its log channel (through /settings, as they would). */
async function startLogging(logPaceMs = 20) {
  world = await start({ logPaceMs });
  const logChannel = await world.discord.createChannel('mod-log');
  await settings('log-channel', world.discord.channels.general, { channel: logChannel });
  return { discord: world.discord, logChannel };
}
const buttonsOf = (message: FakeMessage) =>
  (message.components as { components: { custom_id: string; label: string }[] }[]).flatMap((row) => row.components);

describe('/settings log-channel', () => {
  it("posts a run's card with who, where, the question, its tools, model, tokens, cost, duration, outcome; Steps shows the step log to the presser alone", async () => {
    world = await start({ logPaceMs: 20, models: [{ name: 'test-model', price: { input: 2, output: 8 } }] });
    const { discord } = world;
    const logChannel = await discord.createChannel('mod-log');
    const set = await settings('log-channel', discord.channels.general, { channel: logChannel });
    expect(set).toMatchObject({ ephemeral: true, content: expect.stringContaining(`<#${logChannel}>`) });
    // Bob is no moderator: refused, and nothing changes.
    const refused = await settings('log-channel', discord.channels.general, {}, 'bob');
    expect(refused.content).toBe('This command is for moderators.');

    // The first call's server says it took 64 of its prompt tokens from its cache.
    world.model.enqueue(
      reportingCache(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), 64, 'openai'),
    );
    const thread = await ask(discord.channels.general, 'what is six times seven?\nshow your work', world.model, '42.');
    const cards = await waitForCards(logChannel, /Answered/);
    const run = world.store.runs.recent(null, 1)[0]!;
    const answer = discord.botMessages(thread.id).at(-1)!;

    expect(cards[0]).toMatchObject({ title: '⚙️ Settings changed' });
    expect(cards[0]!.fields![0]!.value).toBe(`log_channel = <#${logChannel}> for the server`);
    const card = cards.find((candidate) => candidate.title.includes('Answered'))!;
    expect(card.title).toBe('✅ Answered · Ada');
    expect(card.description).toBe(
      [
        '> what is six times seven?',
        `<@${discord.users.ada}> in <#${thread.id}> · [answer](https://discord.com/channels/${discord.guildId}/${thread.id}/${answer.id})`,
      ].join('\n'),
    );
    expect(card.fields).toEqual([{ name: 'Tools', value: '✓ calculator' }]);
    // Tokens as the fake model counts them, priced as MODELS_FILE says ($2 in, $8 out per million).
    // The duration as formatElapsed writes it: "250 ms", or "1.2 s" for a run slowed past a second.
    expect(card.footer!.text).toMatch(
      new RegExp(
        `^test-model · ${run.total_tokens.toLocaleString('en-US')} tokens \\(64 cached\\) · less than \\$0\\.01 · (?:\\d+ ms|\\d+\\.\\d s) · run ${run.id.slice(0, 8)}$`,
      ),
    );
    // No pings from the log, ever.
    const posted = discord.requests.filter(
      (request) => request.method === 'POST' && request.path === `/channels/${logChannel}/messages`,
    );
    expect(
      posted.every(
        (request) =>
          JSON.stringify((request.body as { allowed_mentions: unknown }).allowed_mentions) === '{"parse":[]}',
      ),
    ).toBe(true);

    const post = logPosts(logChannel).find((message) => cardsOf([message]).includes(card))!;
    expect(buttonsOf(post)).toEqual([
      { type: 2, style: 2, label: `Steps · ${run.id.slice(0, 8)}`, custom_id: `steps:run:${run.id}` },
    ]);
    const before = logPosts(logChannel).length;
    const pressed = await discord.userPressesMessageButton({
      channelId: logChannel,
      messageId: post.id,
      customId: `steps:run:${run.id}`,
      author: 'ada',
    });
    const steps = await pressed.waitForReply((reply) => reply.content.includes('calculator'));
    expect(steps.ephemeral).toBe(true);
    expect(steps.content).toContain(run.id);
    const byBob = await discord.userPressesMessageButton({
      channelId: logChannel,
      messageId: post.id,
      customId: `steps:run:${run.id}`,
      author: 'bob',
    });
    // Refused by the router (no moderator where he pressed), before the run's own place is checked.
    expect(await byBob.waitForReply()).toMatchObject({ ephemeral: true, content: 'This command is for moderators.' });
    // Ephemeral: the channel shows no step log to anyone else.
    expect(logPosts(logChannel)).toHaveLength(before);
  });

  it('a failed run says why; clearing the channel stops logging; /settings show names the channel', async () => {
    world = await start({ logPaceMs: 20 }, { maxRetries: 0 });
    const { discord } = world;
    const logChannel = await discord.createChannel('mod-log');
    // Told at once when the bot could not show its cards there (roles and overwrites as Discord computes them).
    discord.setBotPermissions(defaultBotPermissions & ~PermissionFlagsBits.EmbedLinks);
    const lacking = await settings('log-channel', discord.channels.general, { channel: logChannel });
    expect(lacking.content).toContain('But I lack Embed Links there: give me it, then set the channel again.');
    discord.setBotPermissions(defaultBotPermissions);
    const set = await settings('log-channel', discord.channels.general, { channel: logChannel });
    expect(set.content).toContain('If I cannot post there, `/settings show` says why.');
    expect((await settings('show', discord.channels.general)).content).toContain(`- Log channel: <#${logChannel}>`);

    world.model.enqueue(apiError(400, 'This model does not exist.'));
    await ask(discord.channels.general, 'hello?', world.model, null);
    const cards = await waitForCards(logChannel, /Failed/);
    const failed = cards.find((card) => card.title.startsWith('❌ Failed'))!;
    expect(failed.description).toContain('does not exist');

    const cleared = await settings('log-channel', discord.channels.general);
    expect(cleared.content).toBe(`I no longer log to <#${logChannel}>.`);
    expect((await settings('show', discord.channels.general)).content).toContain('- Log channel: none');
    await ask(discord.channels.general, 'and now?');
    expect(world.store.logOutbox.guilds()).toEqual([]);
  });
  it("a message refused by its author's rate is logged, once a window as they are told", async () => {
    world = await startBotWorld(
      { moderatorRoleIds: [moderatorRole], userMessagesPerMinute: 1 },
      {},
      {},
      { logPaceMs: 20 },
    );
    worldHolder.world = world;
    const { discord } = world;
    const logChannel = await discord.createChannel('mod-log');
    await settings('log-channel', discord.channels.general, { channel: logChannel });
    await ask(discord.channels.general, 'first');
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} second, too soon`,
      mentions: [discord.botUser.id],
    });
    const cards = await waitForCards(logChannel, /Not answered/);
    const refused = cards.find((card) => card.title === '⛔ Not answered')!;
    expect(refused.description).toMatch(
      new RegExp(`^<@${discord.users.ada}> \\(Ada\\) in <#${discord.channels.general}>: `),
    );
  });

  it("a member's report of an answer reaches the log channel once, with its reason and a Steps button", async () => {
    const { discord, logChannel } = await startLogging();
    const thread = await ask(discord.channels.general, 'what is the moon made of?', world.model, 'Cheese.');
    await waitForCards(logChannel, /Answered/);
    const answer = discord.botMessages(thread.id).at(-1)!;
    const run = world.store.runs.recent(null, 1)[0]!;
    const report = () =>
      discord.userRunsCommand({
        name: 'Report answer',
        type: 'message',
        targetMessageId: answer.id,
        author: 'bob',
        channelId: thread.id,
      });
    const opened = await report();
    await opened.waitForModal();
    await (await discord.userSubmitsModal(opened, { reason: 'It is not cheese.' })).waitForReply();
    // The same person again, from a form left open: refused, and nothing more is owed to the log.
    await (await discord.userSubmitsModal(opened, { reason: 'Still not cheese.' })).waitForReply();
    await discord.waitFor(() => world.store.logOutbox.guilds().length === 0, { what: 'the outbox emptied' });
    const reported = cardsOf(logPosts(logChannel)).filter((card) => card.title === '🚩 Answer reported');
    expect(reported).toHaveLength(1);
    expect(reported[0]!.description).toBe(
      `by <@${discord.users.bob}> (Bob): It is not cheese.\n[the answer reported](https://discord.com/channels/${discord.guildId}/${thread.id}/${answer.id})`,
    );
    const withCard = logPosts(logChannel).find((message) =>
      cardsOf([message]).some((card) => card.title === '🚩 Answer reported'),
    )!;
    expect(buttonsOf(withCard).map((button) => button.custom_id)).toContain(`steps:run:${run.id}`);
  });
});

describe('a forget in the log channel', () => {
  it("a member's /forget-me is logged: who, and how much went, never what", async () => {
    const { discord, logChannel } = await startLogging();
    await ask(discord.channels.general, 'my secret plan is to sail', world.model, 'Sail well.');
    const forgot = await command({
      name: 'forget-me',
      channelId: discord.channels.general,
      options: { confirm: true },
    });
    expect(forgot.content).toMatch(/^Deleted for good/);
    const card = (await waitForCards(logChannel, /forget-me/)).find(
      (candidate) => candidate.title === '🧹 /forget-me',
    )!;
    expect(card.description).toMatch(new RegExp(`^<@${discord.users.ada}> \\(Ada\\): 1 message, 0 images, 1 run, `));
    expect(JSON.stringify(card)).not.toContain('secret plan');
  });
});

describe('a content check switch in the log channel', () => {
  it('/settings content-check enabled:false is logged as the other settings are', async () => {
    const { discord, logChannel } = await startLogging();
    const off = await settings('content-check', discord.channels.general, { enabled: false });
    expect(off.content).toMatch(/^Content checks are off for this channel/);
    const changes = await world.discord.waitFor(
      () => {
        const shown = cardsOf(logPosts(logChannel))
          .filter((card) => card.title === '⚙️ Settings changed')
          .flatMap((card) => card.fields ?? [])
          .map((field) => field.value);
        return shown.some((value) => value.includes('= off')) && shown;
      },
      { what: 'the switch on a settings card', timeoutMs: 15_000 },
    );
    expect(changes.join('\n')).toMatch(new RegExp(`content_check = off for .*${discord.channels.general}`));
  });
});

describe('a forget owed to the log channel', () => {
  it('is owed as soon as the words are gone, not only once the threads are renamed (a crash meanwhile lost it)', async () => {
    const { discord, logChannel } = await startLogging();
    await ask(discord.channels.general, 'my secret plan is to sail', world.model, 'Sail well.');
    // The thread's rename takes effect but its answer waits: the bot is still renaming.
    let release!: () => void;
    discord.holdNext({
      method: 'PATCH',
      path: /^\/channels\/\d+$/,
      ms: 0,
      until: new Promise<void>((resolve) => (release = resolve)),
    });
    const interaction = await discord.userRunsCommand({
      author: 'ada',
      name: 'forget-me',
      channelId: discord.channels.general,
      options: { confirm: true },
    });
    try {
      // The words are gone (the forget is recorded) while the rename's answer is still awaited.
      const { db } = world.store;
      await discord.waitFor(() => db.prepare('SELECT count(*) FROM forgets').pluck().get() === 1, {
        what: 'the forget recorded',
      });
      const owed = db.prepare(`SELECT count(*) FROM log_outbox WHERE entry LIKE '%"kind":"forget"%'`).pluck().get();
      const posted = cardsOf(logPosts(logChannel)).filter((card) => card.title === '🧹 /forget-me').length;
      expect(Number(owed) + posted).toBeGreaterThanOrEqual(1);
    } finally {
      release();
    }
    expect((await interaction.waitForReply()).content).toMatch(/^Deleted for good/);
    await waitForCards(logChannel, /forget-me/);
  });
});

describe('a tool refused in the log channel', () => {
  it('/tool of a tool switched off here is refused, and the log channel hears of it', async () => {
    const { discord, logChannel } = await startLogging();
    await settings('tools', discord.channels.general, { name: 'calculator', enabled: false });
    const refused = await command({
      name: 'tool',
      subcommand: 'calculator',
      options: { expression: '1+1' },
      author: 'bob',
      channelId: discord.channels.general,
    });
    expect(refused.content).toBe('The moderators have switched **calculator** off here.');
    const card = (await waitForCards(logChannel, /Tool refused/)).find((candidate) =>
      candidate.title.startsWith('🚫 Tool refused'),
    )!;
    expect(card).toMatchObject({
      title: '🚫 Tool refused: calculator',
      description: `in <#${discord.channels.general}>: Bob asked for it with /tool; it is switched off here`,
    });
  });
});

describe('content flags in the log channel', () => {
  it('a flagged question and a flagged answer each get a card; /steps status:flagged lists the answer', async () => {
    const check = await startFakeContentCheck('FORBIDDEN');
    try {
      world = await startBotWorld(
        { moderatorRoleIds: [moderatorRole], toolPosts: 'off' },
        {},
        {},
        {
          logPaceMs: 20,
          contentCheck: moderationsAt(check),
        },
      );
      worldHolder.world = world;
      const { discord } = world;
      const logChannel = await discord.createChannel('mod-log');
      await settings('log-channel', discord.channels.general, { channel: logChannel });
      // The question: flagged before the model is asked, so no reply is scripted for it.
      await discord.userSays({
        channelId: discord.channels.general,
        author: 'ada',
        content: `${mentionOf(world)} something FORBIDDEN`,
        mentions: [discord.botUser.id],
      });
      const questionCard = (await waitForCards(logChannel, /Question flagged/)).find((card) =>
        card.title.includes('Question flagged'),
      )!;
      expect(questionCard.description).toMatch(/^in <#\d+>: violence 0\.91$/);
      // The answer: asked, answered with a flagged text, held back.
      await ask(discord.channels.general, 'a fair question', world.model, 'a FORBIDDEN answer');
      const answerCard = (await waitForCards(logChannel, /Answer flagged/)).find((card) =>
        card.title.includes('Answer flagged'),
      )!;
      const run = world.store.runs.recent(null, 1)[0]!;
      expect(answerCard.footer!.text).toContain(run.id.slice(0, 8));
      const listed = await command({
        name: 'steps',
        channelId: discord.channels.general,
        options: { status: 'flagged' },
      });
      expect([...listed.content.matchAll(/^`([0-9a-f]{8})`/gm)].map((match) => match[1])).toEqual([run.id.slice(0, 8)]);
    } finally {
      await check.close();
    }
  });
});

describe('the log under load and in trouble', () => {
  it('a burst of 200 runs: every card posted once, in far fewer than 200 messages', { timeout: 180_000 }, async () => {
    const { discord, logChannel } = await startLogging(100);
    const count = 200;
    for (let index = 0; index < count; index += 1) world.model.enqueue(finalAnswer(`Answer ${index}.`));
    for (let index = 0; index < count; index += 1)
      await discord.userSays({
        channelId: discord.channels.general,
        author: 'ada',
        content: `${mentionOf(world)} question ${index}`,
        mentions: [discord.botUser.id],
      });
    const cards = await waitForCards(logChannel, /Answered/, count);
    const runIds = world.store.runs.recent(null, count + 1).map((run) => run.id.slice(0, 8));
    expect(runIds).toHaveLength(count);
    const footers = cards.flatMap((card) => (card.footer ? [card.footer.text.slice(-8)] : []));
    expect(footers.toSorted()).toEqual(runIds.toSorted());
    expect(logPosts(logChannel).length).toBeLessThanOrEqual(count / 4);
    await discord.waitFor(() => world.store.logOutbox.guilds().length === 0, { what: 'the outbox emptied' });
  });

  it('while the bot cannot post in the log channel, the cards owed stay bounded: the oldest run cards go first', async () => {
    const { logger, lines } = recordingLogger();
    world = await start({ logPaceMs: 20, logger });
    const { discord, store } = world;
    const gone = await discord.createChannel('mod-log');
    await settings('log-channel', discord.channels.general, { channel: gone });
    await discord.deleteChannel(gone);
    await ask(discord.channels.general, 'first');
    await discord.waitFor(() => lines.some((line) => line.msg === 'cannot post in the log channel'), {
      what: 'the problem logged',
    });
    // Weeks of runs while nobody fixes the channel, owed already.
    const owed = () =>
      store.logOutbox
        .oldest(discord.guildId, 5000)
        .map((row) => JSON.parse(row.entry) as { kind: string; runId?: string });
    const settingsCards = owed().filter((entry) => entry.kind === 'settings').length;
    for (let index = 0; index < 2000; index += 1)
      store.logOutbox.add(discord.guildId, JSON.stringify({ kind: 'run', runId: `old-${index}` }));
    await ask(discord.channels.general, 'second');
    const run = store.runs.recent(null, 1)[0]!;
    await discord.waitFor(() => owed().some((entry) => entry.runId === run.id), { what: "the second run's card owed" });
    expect(store.logOutbox.count(discord.guildId)).toBe(2000);
    // The settings cards stay; the oldest runs went.
    expect(owed().filter((entry) => entry.kind === 'settings')).toHaveLength(settingsCards);
    expect(owed().some((entry) => entry.runId === 'old-0')).toBe(false);
  });

  it('the bound holds for every kind of card: refused /tool presses past it drop the oldest', async () => {
    world = await start({ logPaceMs: 20, databaseTools: true });
    const { discord, store } = world;
    const gone = await discord.createChannel('mod-log');
    await settings('log-channel', discord.channels.general, { channel: gone });
    await discord.deleteChannel(gone);
    // Cards of a kind that is not a run's, owed already: a member refused a moderators' tool again and again.
    for (let index = 0; index < 2000; index += 1)
      store.logOutbox.add(
        discord.guildId,
        JSON.stringify({
          kind: 'tool-refused',
          tool: 'search_server',
          channelId: discord.channels.general,
          runId: null,
          reason: `old-${index}`,
        }),
      );
    // Bob, no moderator, presses /tool search_server (moderators only) once more.
    const refused = await command({
      name: 'tool',
      subcommand: 'search_server',
      options: { query: 'plans' },
      channelId: discord.channels.general,
      author: 'bob',
    });
    expect(refused.content).toMatch(/moderators/);
    const owed = () =>
      store.logOutbox.oldest(discord.guildId, 5000).map((row) => JSON.parse(row.entry) as { reason?: string });
    await discord.waitFor(() => owed().every((entry) => entry.reason !== 'old-0'), { what: 'the oldest card dropped' });
    expect(store.logOutbox.count(discord.guildId)).toBe(2000);
  });

  it('a log channel the bot cannot post in is reported once, not tried per run, and tried again when set again', async () => {
    const { logger, lines } = recordingLogger();
    world = await start({ logPaceMs: 20, logger });
    const { discord } = world;
    const gone = await discord.createChannel('mod-log');
    await settings('log-channel', discord.channels.general, { channel: gone });
    await discord.deleteChannel(gone);
    await ask(discord.channels.general, 'first');
    await discord.waitFor(() => lines.some((line) => line.msg === 'cannot post in the log channel'), {
      what: 'the problem logged',
    });
    await ask(discord.channels.general, 'second');
    await ask(discord.channels.general, 'third');
    const shown = await settings('show', discord.channels.general);
    expect(shown.content).toContain(`⚠️ I cannot post in the log channel <#${gone}>: the channel no longer exists.`);

    const fixed = await discord.createChannel('mod-log-2');
    await settings('log-channel', discord.channels.general, { channel: fixed });
    // Nothing lost: the three runs' cards (and the settings changes owed since) reach the new channel.
    const cards = await waitForCards(fixed, /Answered/, 3);
    expect(cards.filter((card) => card.title.startsWith('✅'))).toHaveLength(3);
    expect(lines.filter((line) => line.msg === 'cannot post in the log channel')).toHaveLength(1);
    const tries = discord.requests.filter(
      (request) => request.method === 'POST' && request.path === `/channels/${gone}/messages`,
    );
    expect(tries).toHaveLength(1);
    expect((await settings('show', discord.channels.general)).content).not.toContain('⚠️');
  });
});
