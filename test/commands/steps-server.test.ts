/**
 * /steps across the server (commands/steps.ts, steps-list.ts): the server's runs filtered by who
 * asked, where, a tool, a status and since when, never another server's; ten to a page with
 * Previous / Next that only the asker may press, and a menu that opens one run's step log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../db/store.ts';
import type { FakeInteractionReply, FakeOptionValue } from '../support/fake-discord.ts';
import { type BotWorld, askInGeneral, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

const day = 86_400_000;

/** The run ids (their first 8 characters) a list shows, in order. */
const listed = (reply: FakeInteractionReply) =>
  [...reply.content.matchAll(/^`([0-9a-f]{8})`/gm)].map((match) => match[1]);

/** The bot's instance, which a run's row names. */
const instanceOf = (store: Store) => store.db.prepare('SELECT id FROM instances LIMIT 1').pluck().get() as string;

/** A run written straight to the step log: ended as `end` says, `startedAt` ago. */
function storedRun(
  store: Store,
  conversationId: number,
  id: string,
  end: { status: 'answered' | 'failed' | 'stopped'; startedAt: number; stopReason?: string },
) {
  store.runs.start(
    { id, conversationId, instanceId: instanceOf(store), triggerMessageIds: [], model: 'test-model' },
    end.startedAt,
  );
  store.runs.finish(
    id,
    {
      status: end.status,
      stopReason: end.stopReason ?? null,
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      error: end.status === 'failed' ? 'the model server failed' : null,
      errorCode: null,
    },
    end.startedAt + 1000,
  );
}

async function stepsList(options: Record<string, FakeOptionValue> = {}, author: 'ada' | 'bob' = 'ada') {
  const interaction = await world.discord.userRunsCommand({
    name: 'steps',
    author,
    channelId: world.discord.channels.general,
    options,
  });
  return { interaction, reply: await interaction.waitForReply() };
}

describe('/steps across the server', () => {
  it("filters the server's runs by user, channel, tool, status and since; another server's never show", async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }),
      finalAnswer('42', ['calculator']),
    );
    const { thread: adaThread } = await askInGeneral(world, '6*7');
    await waitForBotPosts(world, adaThread.id, 2);
    model.enqueue(finalAnswer('Hello, Bob.'));
    const bobAsked = await discord.userSays({
      channelId: discord.channels.random,
      author: 'bob',
      content: `${mentionOf(world)} hello`,
      mentions: [discord.botUser.id],
    });
    const bobThread = await discord.waitFor(() => discord.threads().find((thread) => thread.id === bobAsked.id));
    await waitForBotPosts(world, bobThread.id, 1);
    const [bobRun, adaRun] = store.runs.recent(null, 2).map((run) => run.id.slice(0, 8));

    const adaConversation = store.conversations.byKey(`discord:${adaThread.id}`)!;
    const bobConversation = store.conversations.byKey(`discord:${bobThread.id}`)!;
    const now = Date.now();
    store.runs.recordRefused({
      id: 'aaaaaaaa-0000-4000-8000-000000000001',
      conversationId: adaConversation.id,
      instanceId: instanceOf(store),
      triggerMessageIds: [],
      model: 'test-model',
      error: 'the daily token budget is spent',
      delivery: 'withheld',
    });
    storedRun(store, bobConversation.id, 'bbbbbbbb-0000-4000-8000-000000000002', {
      status: 'stopped',
      startedAt: now - 1000,
      stopReason: 'stopped by a person',
    });
    storedRun(store, adaConversation.id, 'cccccccc-0000-4000-8000-000000000003', {
      status: 'failed',
      startedAt: now - 3 * day,
    });
    // Another server whose conversation even claims this server's #general: never listed here.
    const elsewhere = store.conversations.ensure({
      key: 'discord:300000000000000777',
      title: 'elsewhere',
      guildId: '300000000000000999',
      channelId: discord.channels.general,
      threadId: '300000000000000777',
      startedById: discord.users.ada,
      startedByName: 'ada',
    });
    storedRun(store, elsewhere.id, 'dddddddd-0000-4000-8000-000000000004', { status: 'failed', startedAt: now });

    const all = await stepsList();
    expect(all.reply.ephemeral).toBe(true);
    expect(all.reply.content).toMatch(/^\*\*Runs in this server\*\* · page 1 \(runs 1–5\)\n/);
    expect(new Set(listed(all.reply))).toEqual(new Set([adaRun, bobRun, 'aaaaaaaa', 'bbbbbbbb', 'cccccccc']));
    // Newest first; the oldest (three days ago) last.
    expect(listed(all.reply).at(-1)).toBe('cccccccc');
    // A line a phone shows whole: the outcome, when, who, where, the tools, the tokens.
    const adaLine = all.reply.content.split('\n').find((line) => line.startsWith(`\`${adaRun}\``))!;
    expect(adaLine).toMatch(
      new RegExp(
        `^\`${adaRun}\` ✓ answered · <t:\\d+:R> · <@${discord.users.ada}> · <#${adaThread.id}> · calculator · \\d+ tok$`,
      ),
    );

    expect(listed((await stepsList({ user: discord.users.bob })).reply)).toEqual([bobRun]);
    expect(new Set(listed((await stepsList({ channel: discord.channels.random })).reply))).toEqual(
      new Set([bobRun, 'bbbbbbbb']),
    );
    expect(new Set(listed((await stepsList({ channel: adaThread.id })).reply))).toEqual(
      new Set([adaRun, 'aaaaaaaa', 'cccccccc']),
    );
    expect(listed((await stepsList({ tool: 'calculator' })).reply)).toEqual([adaRun]);
    expect(listed((await stepsList({ status: 'refused' })).reply)).toEqual(['aaaaaaaa']);
    expect(listed((await stepsList({ status: 'stopped' })).reply)).toEqual(['bbbbbbbb']);
    expect(listed((await stepsList({ status: 'failed' })).reply)).toEqual(['cccccccc']);
    expect(new Set(listed((await stepsList({ since: '1d' })).reply))).toEqual(
      new Set([adaRun, bobRun, 'aaaaaaaa', 'bbbbbbbb']),
    );
    expect(listed((await stepsList({ since: new Date(now - 4 * day).toISOString().slice(0, 10) })).reply)).toHaveLength(
      5,
    );
    expect(listed((await stepsList({ user: discord.users.ada, status: 'stopped' })).reply)).toEqual([]);

    const unreadable = await stepsList({ since: 'last week' });
    expect(unreadable.reply.content).toMatch(/^I cannot read "since: last week"/);

    // In a conversation's thread, no filter means that thread's runs, as before.
    const inThread = await discord.userRunsCommand({ name: 'steps', author: 'ada', channelId: bobThread.id });
    expect(new Set(listed(await inThread.waitForReply()))).toEqual(new Set([bobRun, 'bbbbbbbb']));
  });

  it('a summary run is listed as one ("summary answered"), not as an answer to whoever wrote what it summed up', async () => {
    world = await startBotWorld();
    const { model, store } = world;
    model.enqueue(finalAnswer('Hello, Ada.'));
    const { thread } = await askInGeneral(world, 'hello');
    await waitForBotPosts(world, thread.id, 1);
    const conversation = store.conversations.byKey(`discord:${thread.id}`)!;
    const asked = store.messages.userMessagesAfter(conversation.id, 0).map((row) => row.id);
    store.summaries.record(
      {
        id: 'eeeeeeee-0000-4000-8000-000000000005',
        conversationId: conversation.id,
        instanceId: instanceOf(store),
        summarisedIds: asked,
        model: 'test-model',
        modelName: 'test-model',
        startedAt: Date.now(),
        promptTokens: 10,
        completionTokens: 5,
        summary: 'Ada said hello.',
        error: null,
        errorCode: null,
        note: 'summary',
      },
      null,
    );
    const line = (await stepsList()).reply.content.split('\n').find((text) => text.startsWith('`eeeeeeee`'))!;
    expect(line).toMatch(/^`eeeeeeee` ✓ summary answered · /);
  });

  it('pages ten runs at a time; only the asker may turn the pages; the menu opens a run', async () => {
    const moderatorRole = '100000000000000021';
    world = await startBotWorld({ moderatorRoleIds: [moderatorRole] });
    const { discord, store } = world;
    await discord.giveRole(discord.users.bob, moderatorRole);
    const conversation = store.conversations.ensure({
      key: 'discord:100000000000000555',
      title: 'a busy thread',
      guildId: discord.guildId,
      channelId: discord.channels.general,
      threadId: '100000000000000555',
      startedById: discord.users.ada,
      startedByName: 'ada',
    });
    const now = Date.now();
    const ids = Array.from(
      { length: 12 },
      (_, index) => `${String(index).padStart(8, '0')}-0000-4000-8000-000000000000`,
    );
    ids.forEach((id, index) =>
      storedRun(store, conversation.id, id, { status: 'answered', startedAt: now - index * 60_000 }),
    );

    const { interaction, reply } = await stepsList({ since: '1d' });
    expect(reply.content).toContain('· page 1 (runs 1–10, more on the next)');
    expect(listed(reply)).toEqual(ids.slice(0, 10).map((id) => id.slice(0, 8)));
    const [menu, buttons] = reply.components as { components: { custom_id: string; disabled?: boolean }[] }[];
    const [previous, next] = buttons!.components;
    expect(previous!.disabled).toBe(true);

    const notYours = await discord.userPressesComponent({ on: interaction, customId: next!.custom_id, author: 'bob' });
    expect(await notYours.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'This list is not yours: use /steps to get your own.',
    });

    const turned = await discord.userPressesComponent({ on: interaction, customId: next!.custom_id, author: 'ada' });
    const page2 = await turned.waitForReply();
    expect(page2).toMatchObject({ kind: 'callback', type: 7 });
    expect(page2.content).toContain('· page 2 (runs 11–12)');
    expect(listed(page2)).toEqual(ids.slice(10).map((id) => id.slice(0, 8)));
    const [, buttons2] = page2.components as { components: { custom_id: string; disabled?: boolean }[] }[];
    expect(buttons2!.components[1]!.disabled).toBe(true);

    const back = await discord.userPressesComponent({
      on: interaction,
      customId: buttons2!.components[0]!.custom_id,
      author: 'ada',
    });
    expect(listed(await back.waitForReply())).toEqual(ids.slice(0, 10).map((id) => id.slice(0, 8)));

    const opened = await discord.userPressesComponent({
      on: interaction,
      customId: menu!.components[0]!.custom_id,
      author: 'ada',
      values: [ids[3]!],
    });
    const log = await opened.waitForReply();
    expect(log.ephemeral).toBe(true);
    expect(log.content).toContain(`**Run \`${ids[3]}\`** ✓ answered`);
    expect(log.content).toContain('tokens: 10 prompt + 5 completion = 15');
  });
});
