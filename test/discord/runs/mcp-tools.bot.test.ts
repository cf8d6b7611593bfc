import { describe, expect, it } from 'vitest';
import { type BotWorld, mentionOf, waitForBotPosts } from '../../support/bot-harness.ts';
import { dataUrlOf, imageUrlsOf, png } from '../../support/images.ts';
import { testServerConfig } from '../../support/mcp-test-server.ts';
import { useMcpWorld } from '../../support/mcp-world.ts';
import { finalAnswer, toolCalls } from '../../support/fake-model.ts';

const mcp = useMcpWorld();

async function startWithServer(options: { moderatorOnly?: boolean } = {}): Promise<BotWorld> {
  return mcp.start(testServerConfig('test', options));
}

/** Bob starts a conversation (Ada is a moderator in the fake server; Bob is not). */
async function conversation(w: BotWorld, content: string) {
  await w.discord.userSays({
    channelId: w.discord.channels.general,
    author: 'bob',
    content: `${mentionOf(w)} ${content}`,
    mentions: [w.discord.botUser.id],
  });
  return w.discord.waitFor(() => w.discord.threads()[0]);
}

describe('MCP tools in the bot', () => {
  it('the agent calls an MCP tool: offered non-strict as <server>__<tool>, its result posted and answered', async () => {
    const w = await startWithServer();
    w.model.enqueue(
      toolCalls({ name: 'test__echo', arguments: { text: 'hello' } }),
      finalAnswer('It said hello back.', ['test__echo']),
    );
    const thread = await conversation(w, 'ask the echo tool');
    const posts = await waitForBotPosts(w, thread.id, 2);

    expect(posts.map((post) => post.content)).toEqual([
      '🔧 **test__echo** `{"text":"hello"}` → `echo: hello`',
      'It said hello back.\n-# 🔧 test__echo',
    ]);
    const offered = w.model.requests[0]!.tools!.find((spec) => spec.function.name === 'test__echo');
    expect(offered?.function).toMatchObject({
      strict: false,
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(w.model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: hello' });
  });

  it('arguments that break the server’s schema go back to the model with the issues, and the server is never called', async () => {
    const w = await startWithServer();
    w.model.enqueue(
      toolCalls({ name: 'test__add', arguments: { a: 'two', b: 3 } }),
      finalAnswer('I could not add those.'),
    );
    const thread = await conversation(w, 'add two and three');
    await waitForBotPosts(w, thread.id, 2);

    const observation = w.model.requests[1]!.messages.at(-1);
    expect(observation).toMatchObject({ role: 'tool', content: expect.stringContaining('a: must be number') });
  });

  it('/tool posts the images an MCP tool returns as files, and the agent shows them to a model that sees', async () => {
    const w = await mcp.start(testServerConfig('test'), {}, {}, {}, { images: { vision: true } });
    const ran = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'screenshot' },
      author: 'bob',
      channelId: w.discord.channels.general,
    });
    const reply = await ran.waitForReply();
    expect(reply.content).toContain('the screen, 40 by 30');
    expect(reply.files.map((file) => file.name)).toEqual(['image-1.png']);
    const posted = w.discord.messages(w.discord.channels.general).find((message) => message.id === reply.messageId)!;
    const served = await fetch(posted.attachments[0]!.url);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(png(40, 30));

    w.model.enqueue(toolCalls({ name: 'test__screenshot', arguments: {} }), (request) => {
      expect(request.messages.at(-1)!.role).toBe('user');
      expect(imageUrlsOf(request.messages.at(-1)!)).toEqual([dataUrlOf('image/png', png(40, 30))]);
      return finalAnswer('I see the screen.', ['test__screenshot']);
    });
    const thread = await conversation(w, 'look at the screen');
    const [, images, answer] = await waitForBotPosts(w, thread.id, 3);
    // The people see it too: after the tool post (the animation refused, as for the model).
    expect(images!.attachments.map((file) => file.filename)).toEqual(['image-1.png']);
    expect(answer!.content).toContain('I see the screen.');
  });

  it("a tool's images are posted after its tool post, as its audience says: one for the user never reaches the model, one for the assistant is not posted", async () => {
    const w = await mcp.start(testServerConfig('test'), {}, {}, {}, { images: { vision: true } });
    w.model.enqueue(toolCalls({ name: 'test__screens_for', arguments: {} }), (request) => {
      const [results, shown] = request.messages.slice(-2);
      expect(results).toMatchObject({ role: 'tool', content: expect.stringContaining('three screens') });
      expect(results!.content).toContain('[The tool returned 2 images: shown to you after the results.]');
      expect(results!.content).toContain(
        '[The tool returned an image for the person: posted in the thread, not for you.]',
      );
      // The assistant's and both's, never the user's.
      expect(imageUrlsOf(shown!)).toEqual([png(20, 1), png(30, 1)].map((image) => dataUrlOf('image/png', image)));
      return finalAnswer('Three screens.', ['test__screens_for']);
    });
    const thread = await conversation(w, 'show me the screens');
    const [toolPost, images, answer] = await waitForBotPosts(w, thread.id, 3);
    expect(toolPost!.content).toContain('test__screens_for');
    expect(answer!.content).toContain('Three screens.');
    const served = await Promise.all(
      images!.attachments.map(async (file) => [
        file.filename,
        Buffer.from(await (await fetch(file.url)).arrayBuffer()),
      ]),
    );
    // The user's and both's, never the assistant's.
    expect(served).toEqual([
      ['image-1.png', png(10, 1)],
      ['image-2.png', png(30, 1)],
    ]);
    // Recorded with the run, as its other posts are (a report or /steps finds the run by them).
    expect(JSON.parse(w.store.runs.recent(null, 1)[0]!.posted_message_ids)).toEqual([
      toolPost!.id,
      images!.id,
      answer!.id,
    ]);
  });

  it("when Discord refuses a tool post's images, a line says so and the run goes on", async () => {
    const w = await startWithServer();
    // The run's second post (after the tool post): 413 "Request entity too large", code 40005.
    w.discord.failNext({
      method: 'POST',
      path: /^\/channels\/\d+\/messages$/,
      skip: 1,
      status: 413,
      body: { code: 40005, message: 'Request entity too large' },
    });
    w.model.enqueue(toolCalls({ name: 'test__screens_for', arguments: {} }), finalAnswer('Three screens.'));
    const thread = await conversation(w, 'show me the screens');
    const [, refused, answer] = await waitForBotPosts(w, thread.id, 3);
    expect(refused!.attachments).toEqual([]);
    expect(refused!.content).toBe(
      '-# 2 images returned but not posted: Discord refused the files: Request entity too large.',
    );
    expect(answer!.content).toContain('Three screens.');
  });

  it('/tool posts 10 images at most and names the rest; when Discord refuses the files, the result is posted alone', async () => {
    const w = await startWithServer();
    const run = () =>
      w.discord.userRunsCommand({
        name: 'tool',
        subcommand: 'test',
        options: { tool: 'screenshots', arguments: '{"count":12}' },
        author: 'bob',
        channelId: w.discord.channels.general,
      });
    const many = await (await run()).waitForReply();
    expect(many.files.map((file) => file.name)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => `image-${n}.png`));
    expect(many.content).toContain('12 screens');
    expect(many.content).toContain('2 images returned but not posted: a message takes 10 files at most.');

    // Discord: 413 "Request entity too large" (code 40005) past the upload size limit.
    w.discord.failNext({
      method: 'PATCH',
      path: /\/webhooks\/.*\/messages\/%40original$/,
      status: 413,
      body: { code: 40005, message: 'Request entity too large' },
    });
    const refused = await (await run()).waitForReply();
    expect(refused.files).toEqual([]);
    expect(refused.content).toContain('12 screens');
    expect(refused.content).toContain('12 images returned but not posted: Discord refused the files');
  });

  it('/tool <server> runs one of its tools by name, with JSON arguments checked by its schema, and suggests the tools as you type', async () => {
    const w = await startWithServer();
    const channelId = w.discord.channels.general;

    const typing = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'ec' },
      focused: 'tool',
      author: 'bob',
      channelId,
    });
    expect(await typing.waitForChoices()).toEqual([{ name: 'echo: Says the text back.', value: 'echo' }]);

    const ran = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'echo', arguments: '{"text":"hi"}' },
      author: 'bob',
      channelId,
    });
    expect(await ran.waitForReply()).toMatchObject({
      ephemeral: false,
      content: '🔧 **test__echo** `{"text":"hi"}` → `echo: hi`',
    });
    const run = w.store.runs.recent(null, 1)[0]!;
    expect(w.store.steps.ofRun(run.id)).toMatchObject([
      { kind: 'tool-call', tool_name: 'test__echo', status: 'ok', result: 'echo: hi' },
    ]);

    const invalid = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'add', arguments: '{"a":"x"}' },
      author: 'bob',
      channelId,
    });
    expect((await invalid.waitForReply()).content).toMatch(/^That input does not work for \*\*test__add\*\*:\n- /);
    const notJson = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'add', arguments: '{a: 1' },
      author: 'bob',
      channelId,
    });
    expect((await notJson.waitForReply()).content).toMatch(/^The arguments must be a JSON object/);
    const unknown = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'nope' },
      author: 'bob',
      channelId,
    });
    expect((await unknown.waitForReply()).content).toMatch(
      /^\*\*test\*\* has no tool called "nope"\. It has: `echo`, `add`/,
    );
    for (const interaction of [invalid, notJson, unknown])
      expect((await interaction.waitForReply()).ephemeral).toBe(true);

    // A reply that would pass Discord's 2,000 characters is cut, not lost to an error.
    const longName = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'x'.repeat(3_000) },
      author: 'bob',
      channelId,
    });
    const cut = await longName.waitForReply();
    expect(cut.content).toHaveLength(2000);
    expect(cut.content).toMatch(/^\*\*test\*\* has no tool called "x+…$/);
  });

  it('a server that crashed: its tools answer "unavailable" to the model and to /tool, and the commands stay as registered', async () => {
    const w = await startWithServer();
    const puts = () =>
      w.discord.requests.filter((request) => request.method === 'PUT' && request.path.endsWith('/commands')).length;
    const registered = JSON.stringify(w.discord.registeredCommands());
    w.model.enqueue(toolCalls({ name: 'test__crash', arguments: {} }), finalAnswer('The server crashed.'));
    const thread = await conversation(w, 'crash it');
    const posts = await waitForBotPosts(w, thread.id, 2);
    expect(posts[0]!.content).toContain('the test MCP server stopped during the call; it is being restarted');

    w.model.enqueue(toolCalls({ name: 'test__echo', arguments: { text: 'anyone?' } }), finalAnswer('It is down.'));
    await w.discord.userSays({ channelId: thread.id, author: 'bob', content: 'try echo' });
    await waitForBotPosts(w, thread.id, 4);
    expect(w.model.requests.at(-1)!.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/^Error: the test MCP server is unavailable right now/),
    });

    const command = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'echo', arguments: '{"text":"hi"}' },
      author: 'bob',
      channelId: thread.id,
    });
    expect(await command.waitForReply()).toMatchObject({
      ephemeral: true,
      content: expect.stringMatching(
        /^The \*\*test\*\* MCP server is unavailable right now \(it exited or closed the connection; restarting\)/,
      ),
    });
    const typing = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: '' },
      focused: 'tool',
      author: 'bob',
      channelId: thread.id,
    });
    expect(await typing.waitForChoices()).toEqual([
      { name: 'The test server is unavailable right now (it is down, restarting)', value: 'unavailable' },
    ]);

    await w.restart();
    expect(puts()).toBe(1);
    expect(JSON.stringify(w.discord.registeredCommands())).toBe(registered);
  });

  it('a moderator-only server: its tools are neither offered to nor run for anyone else', async () => {
    const w = await startWithServer({ moderatorOnly: true });
    w.model.enqueue(finalAnswer('Hi.'));
    const thread = await conversation(w, 'hello');
    await waitForBotPosts(w, thread.id, 1);
    expect(
      w.model.requests[0]!.tools!.map((spec) => spec.function.name).filter((name) => name.startsWith('test__')),
    ).toEqual([]);

    const refused = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: 'echo', arguments: '{"text":"hi"}' },
      author: 'bob',
      channelId: thread.id,
    });
    expect(await refused.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Only moderators can run the tools of **test**.',
    });
    const typing = await w.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'test',
      options: { tool: '' },
      focused: 'tool',
      author: 'bob',
      channelId: thread.id,
    });
    expect(await typing.waitForChoices()).toEqual([]);
  });

  it('/help lists the MCP tools and how each server is doing', async () => {
    const w = await startWithServer();
    const help = await w.discord.userRunsCommand({
      name: 'help',
      author: 'ada',
      channelId: w.discord.channels.general,
    });
    expect((await help.waitForReply()).content).toContain('- **test__echo**: Says the text back.');
    // The test server's many tools fill the first message: the servers may follow in the next.
    const servers = await help.waitForReply((reply) => reply.content.includes('**MCP servers**'));
    expect(servers.content).toContain('**MCP servers**\n- **test**: running');
  });
});
