/**
 * /usage (commands/usage.ts): tokens and runs per day, busiest threads and people, for
 * moderators (MODERATOR_ROLE_IDS checked when the command runs).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { answeredConversation } from '../support/command-world.ts';
import { finalAnswer, reportingCache, toolCalls } from '../support/fake-model.ts';
import { formatRunDetail } from '../../src/terminal/steps-report.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('/usage', () => {
  it('counts holders of a MODERATOR_ROLE_IDS role as moderators, checked when the command runs', async () => {
    world = await startBotWorld({ moderatorRoleIds: ['100000000000000021'] });
    const { discord } = world;
    const before = await discord.userRunsCommand({ name: 'usage', author: 'bob', channelId: discord.channels.general });
    expect((await before.waitForReply()).content).toBe('This command is for moderators.');
    // The bot has no member events (no GuildMembers intent): the interaction's own member data counts.
    await discord.giveRole(discord.users.bob, '100000000000000021');
    const after = await discord.userRunsCommand({ name: 'usage', author: 'bob', channelId: discord.channels.general });
    expect((await after.waitForReply()).content).toMatch(/No runs in this server|Last 7 days/);
  });

  it('/usage shows tokens and runs per day, busiest threads and people', async () => {
    world = await startBotWorld();
    await answeredConversation(world, 'hello', 'Hi.');
    const interaction = await world.discord.userRunsCommand({
      name: 'usage',
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    const reply = await interaction.waitForReply();
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toMatch(
      /\*\*Last 7 days\*\*[\s\S]*- \d{4}-\d{2}-\d{2}: 120 tokens, 1 run\n[\s\S]*\*\*Busiest threads\*\*\n- hello: 120 tokens, 1 run\n[\s\S]*\*\*Busiest people\*\*\n- Ada: 120 tokens, 1 run$/,
    );
  });

  it("keeps a question's Markdown characters in a thread's name, escaped, not taken out", async () => {
    world = await startBotWorld();
    await answeredConversation(world, 'what is 2+3*4? snake_case', 'Fourteen.');
    const interaction = await world.discord.userRunsCommand({
      name: 'usage',
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    const reply = await interaction.waitForReply();
    expect(reply.content).toContain('- what is 2+3\\*4? snake\\_case: ');
  });
});

describe('cached prompt tokens, as the server says them', () => {
  it('reach the step log per model call, the run, npm run steps, and /usage', async () => {
    world = await startBotWorld();
    // A tool turn from a server that says it as OpenAI does, the answer as llama.cpp does.
    world.model.enqueue(
      reportingCache(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), 64, 'openai'),
      reportingCache(finalAnswer('It is 42.'), 90, 'llama.cpp'),
    );
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} what is six times seven?`,
      mentions: [world.discord.botUser.id],
    });
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await waitForBotPosts(world, thread.id, 2);
    await world.bot.queues.idle();

    const run = world.store.runs.recent(null, 1)[0]!;
    const steps = world.store.steps.ofRun(run.id);
    expect(steps.filter((step) => step.kind === 'model-call').map((step) => step.cached_tokens)).toEqual([64, 90]);
    expect(run).toMatchObject({ prompt_tokens: 200, cached_tokens: 154 });
    const report = formatRunDetail({ run, conversation: world.store.conversations.byId(run.conversation_id)!, steps });
    expect(report).toContain('200 prompt (154 cached) + 40 completion = 240 total');
    expect(report).toContain('tokens 100+20 (64 cached)');

    const interaction = await world.discord.userRunsCommand({
      name: 'usage',
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    expect((await interaction.waitForReply()).content).toMatch(
      /\*\*Per model\*\*\n- [^\n]*: 240 tokens, 1 run, 154 of 200 prompt tokens from its cache/,
    );
  });
});
