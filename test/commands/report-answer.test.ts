/**
 * "Report answer" (commands/report-answer.ts): any member reports one of the bot's answers with an
 * optional reason, once; moderators find it with /steps status:reported and in the run's step log;
 * /forget-me takes the member's reports with the rest of what they left.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, askInGeneral, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

describe('Report answer', () => {
  it('stores a report once per person and answer, acknowledges it privately, and moderators find it', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    model.enqueue(finalAnswer('The moon is made of cheese.'));
    const { asked, thread } = await askInGeneral(world, 'what is the moon made of?');
    const [answer] = await waitForBotPosts(world, thread.id, 1);
    // The run records what it posted once it is delivered.
    await world.handled('message', asked.id);
    const run = store.runs.recent(null, 1)[0]!;
    const reports = () => store.db.prepare('SELECT * FROM answer_reports').all() as Record<string, unknown>[];

    const report = () =>
      discord.userRunsCommand({
        name: 'Report answer',
        type: 'message',
        targetMessageId: answer!.id,
        author: 'bob',
        channelId: thread.id,
      });
    const opened = await report();
    const form = await opened.waitForModal();
    expect(form.title).toBe('Report this answer');
    expect(form.components[0]!.components[0]).toMatchObject({ custom_id: 'reason', style: 2, required: false });

    const submitted = await discord.userSubmitsModal(opened, { reason: 'It is not cheese.' });
    expect(await submitted.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Thank you: your report reached the moderators. Only you can see this message.',
    });
    expect(reports()).toEqual([
      expect.objectContaining({
        run_id: run.id,
        message_id: answer!.id,
        guild_id: discord.guildId,
        reporter_id: discord.users.bob,
        reason: 'It is not cheese.',
      }),
    ]);

    // Again from the menu: told at once, no form; again from a form left open: the same, not stored twice.
    expect(await (await report()).waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'You reported this answer already: the moderators have your report.',
    });
    const twice = await discord.userSubmitsModal(opened, { reason: 'Still not cheese.' });
    expect((await twice.waitForReply()).content).toBe(
      'You reported this answer already: the moderators have your report.',
    );
    expect(reports()).toHaveLength(1);

    // A message that is not one of the bot's answers: the question itself.
    const notAnswer = await discord.userRunsCommand({
      name: 'Report answer',
      type: 'message',
      targetMessageId: asked.id,
      author: 'bob',
      channelId: discord.channels.general,
    });
    expect(await notAnswer.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Only my answers can be reported, and that message is not one of them.',
    });

    const found = await discord.userRunsCommand({
      name: 'steps',
      author: 'ada',
      channelId: discord.channels.general,
      options: { status: 'reported' },
    });
    const list = await found.waitForReply();
    expect(list.content).toContain('· reported** · page 1 (run 1)');
    expect(list.content).toMatch(new RegExp(`^\`${run.id.slice(0, 8)}\` ✓ answered .* · ⚑ 1$`, 'm'));

    const log = await discord.userRunsCommand({
      name: 'steps',
      author: 'ada',
      channelId: discord.channels.general,
      options: { run: run.id.slice(0, 8) },
    });
    const shown = (await log.waitForReply()).content;
    expect(shown).toContain('**⚑ Reported once**');
    expect(shown).toMatch(new RegExp(`<@${discord.users.bob}> <t:\\d+:R>: \`It is not cheese.\``));

    // Bob's reports are his: /forget-me takes them; the run (Ada's) stays.
    const forget = await discord.userRunsCommand({
      name: 'forget-me',
      author: 'bob',
      channelId: thread.id,
      options: { confirm: true },
    });
    expect((await forget.waitForReply()).content).toContain('- 1 report you made of my answers');
    expect(reports()).toEqual([]);
    expect(store.runs.byId(run.id)).toBeDefined();
  });
});
