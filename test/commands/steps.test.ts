/**
 * /steps (commands/steps.ts) and the "Agent steps" menu: a run's step log, for moderators, as a
 * file when too long for a message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('/steps', () => {
  it('/steps and "Agent steps" show the log to moderators only, checked again at every use', async () => {
    // With a moderator role configured, Discord shows the commands to all; the bot checks.
    const roleId = '100000000000000099';
    world = await startBotWorld({ moderatorRoleIds: [roleId] });
    const { discord, model } = world;
    model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }),
      finalAnswer('42', ['calculator']),
    );
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} 6*7`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    const [, answer] = await waitForBotPosts(world, thread.id, 2);

    const refused = await discord.userRunsCommand({ name: 'steps', author: 'bob', channelId: thread.id });
    expect(await refused.waitForReply()).toMatchObject({ ephemeral: true, content: 'This command is for moderators.' });

    const table = await discord.userRunsCommand({ name: 'steps', author: 'ada', channelId: thread.id });
    const tableReply = await table.waitForReply();
    expect(tableReply.ephemeral).toBe(true);
    expect(tableReply.content).toMatch(/answered .* calculator/);

    const menu = await discord.userRunsCommand({
      name: 'Agent steps',
      type: 'message',
      targetMessageId: answer!.id,
      author: 'ada',
      channelId: thread.id,
    });
    const detail = await menu.waitForReply();
    expect(detail.content).toContain('question: `6*7`');
    expect(detail.content).toContain('tool-call calculator {"expression":"6*7"} → 42');
    expect(detail.content).toContain('final answer: "42"');
  });

  it('/steps sends a log too long for a message as an attached Markdown file', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    const turn = (offset: number) =>
      toolCalls(
        ...Array.from({ length: 8 }, (_, index) => ({
          name: 'calculator',
          arguments: { expression: `${offset + index} * 1234567 + 7654321` },
        })),
      );
    model.enqueue(turn(0), turn(10), turn(20), finalAnswer('Done.', ['calculator']));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} lots of sums`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await discord.waitFor(() => discord.botMessages(thread.id).some((post) => post.content.startsWith('Done.')));
    const runId = world.store.runs.recent(null, 1)[0]!.id;

    const interaction = await discord.userRunsCommand({
      name: 'steps',
      options: { run: runId.slice(0, 8) },
      author: 'ada',
      channelId: thread.id,
    });
    const reply = await interaction.waitForReply();

    expect(reply.content).toBe('The step log is too long for a message: here it is as a file.');
    expect(reply.files).toHaveLength(1);
    expect(reply.files[0]!.name).toBe(`run-${runId.slice(0, 8)}.md`);
    expect(reply.files[0]!.content).toContain('tool-call calculator {"expression":"27 * 1234567 + 7654321"}');
  });
});
