import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commands } from '../../commands/index.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { builtInTools } from '../../tools/index.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

const mention = () => mentionOf(world);
const botPosts = (channelId: string, count: number) => waitForBotPosts(world, channelId, count);
async function conversation(content = 'hello', answer = 'Hi.') {
  world.model.enqueue(finalAnswer(answer));
  await world.discord.userSays({
    channelId: world.discord.channels.general,
    author: 'ada',
    content: `${mention()} ${content}`,
    mentions: [world.discord.botUser.id],
  });
  const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
  await botPosts(thread.id, 1);
  return thread;
}

const secret = defineTool({
  name: 'purge_cache',
  description: 'Moderators only.',
  parameters: z.object({}),
  moderatorOnly: true,
  execute: () => 'purged',
});

describe('registration', () => {
  it('registers the commands once, not again on an unchanged restart, and again when a description changes', async () => {
    world = await startBotWorld();
    const puts = () =>
      world.discord.requests.filter((request) => request.method === 'PUT' && request.path.endsWith('/commands')).length;
    expect(
      world.discord
        .registeredCommands()
        .map((command) => command.name)
        .sort(),
    ).toEqual(['Agent steps', 'ask', 'help', 'model', 'reset', 'settings', 'steps', 'stop', 'tool', 'usage']);
    expect(puts()).toBe(1);
    // Without moderator roles, Discord shows the moderator commands to those who may manage messages.
    const registered = world.discord.registeredCommands();
    expect(registered.find((command) => command.name === 'steps')?.default_member_permissions).toBe('8192');
    expect(registered.find((command) => command.name === 'help')?.default_member_permissions ?? null).toBeNull();

    await world.restart();
    expect(puts()).toBe(1);

    // The same Discord, a new description: exactly one more PUT.
    const changed = commands.map((command) =>
      command.name === 'help'
        ? {
            ...command,
            data: () => ({
              ...command.data({
                tools: [],
                toolServers: [],
                toolSubcommands: { subcommands: [], servers: [], leftOut: [] },
                moderatorRoleIds: [],
                models: [],
              }),
              description: 'Changed.',
            }),
          }
        : command,
    );
    await world.restart({ commands: changed });
    expect(puts()).toBe(2);
    expect(world.discord.registeredCommands().find((command) => command.name === 'help')?.description).toBe('Changed.');
  });
});

describe('for everyone', () => {
  it('/help answers privately with the tools', async () => {
    world = await startBotWorld();
    const interaction = await world.discord.userRunsCommand({
      name: 'help',
      author: 'bob',
      channelId: world.discord.channels.general,
    });
    const reply = await interaction.waitForReply();
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toContain('**calculator**');
  });

  it('/tool runs a tool without the model, posts the result, logs it, and the agent remembers it in the thread', async () => {
    world = await startBotWorld();
    const thread = await conversation();
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
    expect((await botPosts(thread.id, 3)).at(-1)!.content).toBe('Bob computed 14.');
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
    const thread = await conversation();
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
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([...builtInTools, secret]) });
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

  it('/ask starts a thread with the prompt, and the answer comes there', async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    model.enqueue((request) => {
      expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: what is the capital of France?' });
      return finalAnswer('Paris.');
    });
    const interaction = await discord.userRunsCommand({
      name: 'ask',
      options: { prompt: 'what is the capital of France?' },
      author: 'ada',
      channelId: discord.channels.general,
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    const reply = await interaction.waitForReply();
    expect(reply).toMatchObject({ ephemeral: true, content: `Started: <#${thread.id}>` });
    const posts = await botPosts(thread.id, 2);
    expect(posts.map((post) => post.content)).toEqual(['**Ada** asked: what is the capital of France?', 'Paris.']);
    expect(posts[1]!.message_reference?.message_id).toBe(posts[0]!.id);
  });

  it('/stop stops the run in progress for the person who started the thread, and refuses others', async () => {
    world = await startBotWorld({ moderatorRoleIds: ['100000000000000099'] });
    const { discord, model } = world;
    const thread = await conversation();
    model.enqueue({ hang: true });
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'think hard' });
    await discord.waitFor(() => model.requests.length === 2);

    const refused = await discord.userRunsCommand({ name: 'stop', author: 'bob', channelId: thread.id });
    expect((await refused.waitForReply()).content).toMatch(
      /Only the person who started this conversation, or a moderator/,
    );
    const stopped = await discord.userRunsCommand({ name: 'stop', author: 'ada', channelId: thread.id });
    expect(await stopped.waitForReply()).toMatchObject({ ephemeral: true, content: 'Stopped.' });
    expect((await botPosts(thread.id, 2))[1]!.content).toBe('Stopped before an answer was reached.');
  });

  it('/reset makes the thread start afresh, keeping the old messages in the database', async () => {
    world = await startBotWorld();
    const { discord, model, store } = world;
    const thread = await conversation('my secret is 42', 'Noted.');
    const interaction = await discord.userRunsCommand({ name: 'reset', author: 'ada', channelId: thread.id });
    expect((await interaction.waitForReply()).content).toContain('reset this conversation');

    model.enqueue((request) => {
      expect(request.messages.slice(1).map((message) => message.content)).toEqual(['Ada: what is my secret?']);
      return finalAnswer('I do not know.');
    });
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'what is my secret?' });
    await discord.waitFor(() => discord.botMessages(thread.id).some((post) => post.content === 'I do not know.'));
    expect(store.messages.count(store.conversations.byKey(`discord:${thread.id}`)!.id)).toBe(4);
  });
});

describe('for moderators', () => {
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
      content: `${mention()} 6*7`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    const [, answer] = await botPosts(thread.id, 2);

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
    expect(detail.content).toContain('tool-call calculator {"expression":"6*7"} → 42');
    expect(detail.content).toContain('final answer: "42"');
  });

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
    await conversation('hello', 'Hi.');
    const interaction = await world.discord.userRunsCommand({
      name: 'usage',
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    const reply = await interaction.waitForReply();
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toMatch(
      /\*\*Last 7 days\*\*[\s\S]*- \d{4}-\d{2}-\d{2}: 120 tokens, 1 runs[\s\S]*\*\*Busiest threads\*\*\n- hello: 120 tokens, 1 runs[\s\S]*\*\*Busiest people\*\*\n- Ada: 120 tokens, 1 runs/,
    );
  });
});

describe('refusals and odd cases', () => {
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

  it('/ask keeps to the channel allow-list', async () => {
    world = await startBotWorld({ allowedChannelIds: ['100000000000000011'] });
    const interaction = await world.discord.userRunsCommand({
      name: 'ask',
      options: { prompt: 'hi' },
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    expect(await interaction.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'I do not hold conversations in this channel.',
    });
    await world.handled('interaction', interaction.id);
    expect(world.discord.threads()).toEqual([]);
    expect(world.model.requests).toHaveLength(0);
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

  it('"Agent steps" refuses people who are not moderators', async () => {
    world = await startBotWorld({ moderatorRoleIds: ['100000000000000099'] });
    const thread = await conversation('hi', 'Hello.');
    const [answer] = world.discord.botMessages(thread.id);
    const refused = await world.discord.userRunsCommand({
      name: 'Agent steps',
      type: 'message',
      targetMessageId: answer!.id,
      author: 'bob',
      channelId: thread.id,
    });
    expect(await refused.waitForReply()).toMatchObject({ ephemeral: true, content: 'This command is for moderators.' });
  });
});

describe('moderator-only tools and the model', () => {
  it('offers a moderator-only tool to the model only in runs asked for by moderators', async () => {
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([...builtInTools, secret]) });
    const { discord, model } = world;
    const offered = (index: number) => model.requests[index]!.tools!.map((spec) => spec.function.name);
    model.enqueue(finalAnswer('Hi Bob.'), finalAnswer('Hi Ada.'));
    await discord.userSays({
      channelId: discord.channels.general,
      author: 'bob',
      content: `${mention()} please run purge_cache`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads()[0]);
    await botPosts(thread.id, 1);
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'and for me?' });
    await botPosts(thread.id, 2);

    expect(offered(0)).not.toContain('purge_cache');
    expect(offered(1)).toContain('purge_cache');
  });
});

describe('long step logs', () => {
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
      content: `${mention()} lots of sums`,
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

describe('limits on use', () => {
  it("past the server's daily token budget, tells the person once and calls no model", async () => {
    world = await startBotWorld({ dailyTokenBudget: 100 });
    const { discord, model } = world;
    const thread = await conversation('spend it all'); // 120 tokens: over the budget
    const more = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'more?' });
    const still = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'still?' });
    await world.handled('message', more.id, still.id);
    const notice = discord.botMessages(thread.id)[1]!;

    expect(notice.content).toMatch(/^This server has used its 100 tokens for today\. I will answer again <t:\d+:R>/);
    expect(discord.botMessages(thread.id)).toHaveLength(2);
    expect(model.requests).toHaveLength(1);
  });

  it('past the per-person rate, replies once per window and calls no model', async () => {
    world = await startBotWorld({ userMessagesPerMinute: 2 });
    const { discord, model } = world;
    const thread = await conversation('one');
    model.enqueue(finalAnswer('Two.'));
    await discord.userSays({ channelId: thread.id, author: 'ada', content: 'two' });
    await botPosts(thread.id, 2);
    const three = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'three' });
    const four = await discord.userSays({ channelId: thread.id, author: 'ada', content: 'four' });
    await world.handled('message', three.id, four.id);
    const notice = discord.botMessages(thread.id)[2]!;

    expect(notice.content).toMatch(/^You have sent 2 messages in the last minute\. I will answer again <t:\d+:R>/);
    expect(discord.botMessages(thread.id)).toHaveLength(3);
    expect(model.requests).toHaveLength(2);
  });
});
