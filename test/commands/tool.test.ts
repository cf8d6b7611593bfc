/**
 * /tool (commands/tool.ts): a tool run without the model, in a thread's turn, with its options
 * generated from the tools' schemas; invalid input, moderator-only tools and faults answered
 * privately.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { builtInTools } from '../../tools/index.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { answeredConversation, purgeCache } from '../support/command-world.ts';
import { finalAnswer, toolCalls } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('/tool', () => {
  it('/tool runs a tool without the model, posts the result, logs it, and the agent remembers it in the thread', async () => {
    world = await startBotWorld();
    const thread = await answeredConversation(world);
    const interaction = await world.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'calculator',
      options: { expression: '2+3*4' },
      author: 'bob',
      channelId: thread.id,
    });
    const reply = await interaction.waitForReply();
    expect(reply).toMatchObject({ ephemeral: false, content: '🔧 **calculator** `{"expression":"2+3*4"}` → `14`' });
    const run = world.store.runs.recent(null, 1)[0]!;
    expect(run).toMatchObject({ model: `direct (/tool by ${world.discord.users.bob})`, status: 'answered' });
    expect(world.store.steps.ofRun(run.id)).toMatchObject([
      { kind: 'tool-call', tool_name: 'calculator', arguments: '{"expression":"2+3*4"}', status: 'ok', result: '14' },
    ]);

    world.model.enqueue((request) => {
      const tail = request.messages.slice(-3);
      expect(tail[0]).toMatchObject({
        role: 'assistant',
        tool_calls: [{ function: { name: 'calculator', arguments: '{"expression":"2+3*4"}' } }],
      });
      expect(tail[1]).toMatchObject({ role: 'tool', content: '14' });
      expect(tail[2]).toEqual({ role: 'user', content: 'Ada: what did Bob compute?' });
      return finalAnswer('Bob computed 14.');
    });
    await world.discord.userSays({ channelId: thread.id, author: 'ada', content: 'what did Bob compute?' });
    expect((await waitForBotPosts(world, thread.id, 3)).at(-1)!.content).toBe('Bob computed 14.');
  });

  it('/tool in a thread waits for the run under way there: memory holds one, then the other, never interleaved', async () => {
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = defineTool({
      name: 'slow_lookup',
      description: 'Takes a while.',
      parameters: z.object({}),
      execute: async () => {
        entered();
        await released;
        return 'found';
      },
    });
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([...builtInTools, slow]) });
    const thread = await answeredConversation(world);
    world.model.enqueue(toolCalls({ name: 'slow_lookup', arguments: {} }), finalAnswer('Found it.'));
    await world.discord.userSays({ channelId: thread.id, author: 'ada', content: 'look it up' });
    await inTool;
    const interaction = await world.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'calculator',
      options: { expression: '1+1' },
      author: 'bob',
      channelId: thread.id,
    });
    await world.discord.waitFor(() => interaction.deferred, { what: 'the /tool reply deferred' });
    release();
    expect((await interaction.waitForReply((reply) => reply.content !== '')).content).toContain('→ `2`');
    await world.handled('interaction', interaction.id);

    const [direct, agent] = world.store.runs.recent(null, 2);
    expect(direct!.model).toContain('direct');
    const conversationId = world.store.conversations.byKey(`discord:${thread.id}`)!.id;
    const runOrder = world.store.db
      .prepare<[number], string>(
        'SELECT run_id FROM messages WHERE conversation_id = ? AND run_id IS NOT NULL ORDER BY id',
      )
      .pluck()
      .all(conversationId)
      .filter((runId, index, all) => runId !== all[index - 1]);
    expect(runOrder.slice(-2)).toEqual([agent!.id, direct!.id]);
  });

  it('/tool answers invalid input privately with the issues, and refuses a moderator-only tool to others', async () => {
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([...builtInTools, purgeCache]) });
    const { discord } = world;
    const bad = await discord.userRunsCommand({
      name: 'tool',
      subcommand: 'current_time',
      options: { time_zone: 'Mars/Base' },
      author: 'bob',
      channelId: discord.channels.general,
    });
    expect(await bad.waitForReply()).toMatchObject({
      ephemeral: true,
      content: expect.stringContaining('time_zone: not an IANA time zone name'),
    });
    const refused = await discord.userRunsCommand({
      name: 'tool',
      subcommand: 'purge_cache',
      author: 'bob',
      channelId: discord.channels.general,
    });
    expect(await refused.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Only moderators can run **purge_cache**.',
    });
    const allowed = await discord.userRunsCommand({
      name: 'tool',
      subcommand: 'purge_cache',
      author: 'ada',
      channelId: discord.channels.general,
    });
    expect((await allowed.waitForReply()).content).toContain('→ `purged`');
  });

  it('registers generated /tool options Discord accepts (the fake checks them against the spec)', async () => {
    const odd = defineTool({
      name: 'odd_tool',
      description: 'o'.repeat(150),
      parameters: z.object({
        level: z.number().int().min(1).max(5),
        tags: z.array(z.string()),
        mode: z.enum(['', 'x']).nullable(),
      }),
      execute: () => 'ok',
    });
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([...builtInTools, odd]) });
    const tool = world.discord.registeredCommands().find((command) => command.name === 'tool');
    expect(tool?.options?.map((option) => option.name)).toEqual([
      'calculator',
      'current_time',
      'fetch_url',
      'odd_tool',
    ]);
  });

  it('/tool keeps an error after its public deferral private', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Breaks the bot.',
      parameters: z.object({}),
      execute: () => 'ok',
    });
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([broken]) });
    world.store.close(); // the database is gone under the command: a fault of the bot, not of the input
    const interaction = await world.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'broken',
      author: 'bob',
      channelId: world.discord.channels.general,
    });
    const reply = await interaction.waitForReply((candidate) => candidate.content !== '');
    expect(reply).toMatchObject({
      ephemeral: true,
      content: expect.stringContaining('Something went wrong with that command'),
    });
    await world.handled('interaction', interaction.id);
    expect(
      world.discord.botMessages(world.discord.channels.general).filter((message) => message.content !== ''),
    ).toEqual([]);
    // Its database is closed already: tear down the rest by hand.
    await world.bot.stop({ graceMs: 0 });
    await world.discord.close();
    await world.model.close();
    world = undefined as unknown as BotWorld;
  });
});
