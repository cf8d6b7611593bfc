/**
 * An MCP tool that asks the user for input while it runs (elicitation; the test server's `sign_up`,
 * a form, and `log_in`, a link) through the bot: the person whose message started the run presses
 * "Fill in", which opens a Discord form built from the requested schema; what they submit is checked
 * and reaches the tool; another member's press is refused privately; no answer in time, or Decline,
 * answers the tool too. The step log names the fields asked and the answer, never the values.
 */
import { describe, expect, it } from 'vitest';
import { askInGeneral, type BotWorld, mentionOf, waitForQuestion } from '../../support/bot-harness.ts';
import type { FakeAuthor } from '../../support/fake-discord/shared-types.ts';
import type { McpServerConfig } from '../../../src/mcp/mcp-config.ts';
import { everythingServerConfig } from '../../support/mcp-reference-servers.ts';
import { testServerConfig } from '../../support/mcp-test-server.ts';
import { useMcpWorld } from '../../support/mcp-world.ts';
import { finalAnswer, lastToolMessage, toolCalls } from '../../support/fake-model.ts';

const mcp = useMcpWorld();

async function start(options: { toolConfirmMs?: number; config?: McpServerConfig } = {}) {
  return mcp.start(
    options.config ?? testServerConfig('test'),
    { toolConfirmMs: options.toolConfirmMs ?? 60_000 },
    { toolTimeoutMs: 60_000 },
  );
}

/** Bob asks; the model calls `tool`; resolves with the request for input once it is posted, and what the tool returned. */
async function bobAsks(w: BotWorld, tool: string) {
  let settle!: (text: string) => void;
  const observed = new Promise<string>((resolve) => (settle = resolve));
  w.model.enqueue(toolCalls({ name: tool, arguments: {} }), (request) => {
    settle(lastToolMessage(request));
    return finalAnswer('Done.');
  });
  const { thread } = await askInGeneral(w, 'sign me up', 'bob');
  const { message: question, buttonId } = await waitForQuestion(w, thread.id);
  const press = (name: 'open' | 'decline', author: FakeAuthor) =>
    w.discord.userPressesMessageButton({
      channelId: thread.id,
      messageId: question.id,
      customId: buttonId(name),
      author,
    });
  const closed = () =>
    w.discord.waitFor(() =>
      w.discord
        .botMessages(thread.id)
        .find((message) => message.id === question.id && message.components?.length === 0),
    );
  return { thread, question, press, closed, observed };
}

/** Bob asks; the model calls server-everything's trigger-url-elicitation on its error path (-32042). */
async function bobAsksToConnect() {
  const w = await start({ config: everythingServerConfig() });
  const tool = 'everything__trigger-url-elicitation';
  const seen: string[] = [];
  w.model.enqueue(
    toolCalls({ name: tool, arguments: { url: 'https://example.com/connect', message: 'Connect.', errorPath: true } }),
    (request) => {
      seen.push(lastToolMessage(request));
      return finalAnswer('Done.');
    },
  );
  const { thread } = await askInGeneral(w, 'connect my account', 'bob');
  return { w, thread, seen, tool };
}

function stepOf(w: BotWorld, tool: string) {
  const [run] = w.store.runs.recent(null, 1);
  return w.store.steps.ofRun(run!.id).find((step) => step.tool_name === tool)!;
}

describe('an MCP tool asking for input in Discord', () => {
  it('the asker fills in the form and the tool gets the checked values; another member’s press is refused', async () => {
    const w = await start();
    const { question, press, closed, observed } = await bobAsks(w, 'test__sign_up');
    expect(question.content).toContain('**Bob**, **test__sign_up** needs your input:\n>>> Who are you?');

    const ada = await press('open', 'ada');
    expect(await ada.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Only the person who asked can answer this request.',
    });

    const opened = await press('open', 'bob');
    const form = await opened.waitForModal();
    const inputs = form.components.map((row) => row.components[0]!);
    expect(inputs.map((input) => [input.label, input.required, input.placeholder])).toEqual([
      ['Your name', true, undefined],
      ['Age', true, 'a whole number from 0 to 150'],
      ['Newsletter', false, 'Send me news · yes or no'],
      ['Colour', false, 'one of: red, green, blue'],
    ]);
    const wrong = await w.discord.userSubmitsModal(opened, { '0': 'Bob', '1': '200', '2': 'maybe', '3': 'Red' });
    expect(await wrong.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Not sent:\n- Age: at most 150\n- Newsletter: answer yes or no\nPress **Fill in** again.',
    });

    const again = await press('open', 'bob');
    await again.waitForModal();
    await w.discord.userSubmitsModal(again, { '0': 'Bob', '1': '42', '2': 'yes', '3': 'Red' });
    expect(await observed).toBe('accept {"name":"Bob","age":42,"newsletter":true,"color":"red"}');
    expect((await closed()).content).toBe('✅ Bob answered (name, age, newsletter, color) (**test__sign_up**)');
    await w.discord.waitFor(() => w.store.runs.recent(null, 1)[0]?.status === 'answered' || undefined);
    expect(stepOf(w, 'test__sign_up').note).toBe('input asked (name, age, newsletter, color): accept');
  });

  it('no answer in time: the tool hears "cancel", the post says so and takes no more presses', async () => {
    const w = await start({ toolConfirmMs: 300 });
    const { press, closed, observed } = await bobAsks(w, 'test__sign_up');
    expect(await observed).toBe('cancel null');
    expect((await closed()).content).toBe('⌛ Not answered within 0.3 seconds (**test__sign_up**)');
    await expect(press('open', 'bob')).rejects.toThrow(/has no button/);
    await w.discord.waitFor(() => w.store.runs.recent(null, 1)[0]?.status === 'answered' || undefined);
    expect(stepOf(w, 'test__sign_up').note).toBe('input asked (name, age, newsletter, color): cancel');
  });

  it('Decline answers "decline"', async () => {
    const w = await start();
    const { press, closed, observed } = await bobAsks(w, 'test__sign_up');
    await press('decline', 'bob');
    expect(await observed).toBe('decline null');
    expect((await closed()).content).toBe('✖️ Declined by Bob (**test__sign_up**)');
  });

  it('a link is shown to the asker alone, privately, and the tool hears "accept"', async () => {
    const w = await start();
    const { question, press, closed, observed } = await bobAsks(w, 'test__log_in');
    expect(question.content).toContain('Log in to the service');
    expect(question.content).not.toContain('https://example.com');
    const shown = await press('open', 'bob');
    expect(await shown.waitForReply()).toMatchObject({
      ephemeral: true,
      content: expect.stringContaining('https://example.com/login?state=1'),
    });
    expect(await observed).toBe('accept');
    expect((await closed()).content).toBe('🔗 Bob was given the link (**test__log_in**)');
  });

  it("URL elicitation's error path (-32042): the link goes to the asker, and once opened the call is sent again", async () => {
    const { w, thread, seen } = await bobAsksToConnect();
    // The prerequisite of the error path, then the request path of the call sent again: a link each.
    for (const url of ['https://modelcontextprotocol.io', 'https://example.com/connect']) {
      const { message, buttonId } = await waitForQuestion(w, thread.id);
      const opened = await w.discord.userPressesMessageButton({
        channelId: thread.id,
        messageId: message.id,
        customId: buttonId('open'),
        author: 'bob',
      });
      expect((await opened.waitForReply()).content).toContain(url);
      await w.discord.waitFor(() =>
        w.discord.botMessages(thread.id).find((m) => m.id === message.id && m.components?.length === 0),
      );
    }
    await w.discord.waitFor(() => seen.length > 0, { what: 'the result told to the model' });
    expect(seen[0]).toContain('User completed the URL elicitation flow');
    expect(seen[0]).not.toContain('-32042');
  });

  it("the error path's link declined: the model is told plainly, with no error code", async () => {
    const { w, thread, seen, tool } = await bobAsksToConnect();
    const { message, buttonId } = await waitForQuestion(w, thread.id);
    await (
      await w.discord.userPressesMessageButton({
        channelId: thread.id,
        messageId: message.id,
        customId: buttonId('decline'),
        author: 'bob',
      })
    ).waitForReply();
    await w.discord.waitFor(() => seen.length > 0, { what: 'the result told to the model' });
    expect(seen[0]).toBe(
      `Error: ${tool} needs Bob to open a link first ("Open this link to satisfy the prerequisite, then retry the request."), and they did not (declined, or no answer in time): tell them, and call it again if they ask`,
    );
  });

  it('two calls to one stdio server in flight: its request for input is declined, and the thread is told why', async () => {
    const w = await start();
    const seen: string[] = [];
    w.model.enqueue(
      toolCalls({ name: 'test__slow', arguments: { steps: 6, stepMs: 250 } }, { name: 'test__sign_up', arguments: {} }),
      (request) => {
        seen.push(
          ...request.messages.filter((message) => message.role === 'tool').map((message) => String(message.content)),
        );
        return finalAnswer('Done.');
      },
    );
    const { thread } = await askInGeneral(w, 'sign me up, slowly', 'bob');
    const notice = await w.discord.waitFor(() =>
      w.discord.botMessages(thread.id).find((message) => message.content.includes('asked **Bob** for input, but')),
    );
    expect(notice.content).toBe(
      '**a tool of the test server** asked **Bob** for input, but 2 calls to the test server were running at once, and it does not say which one asked: it was declined.',
    );
    await w.discord.waitFor(() => seen.length > 0, { what: 'the results told to the model' });
    expect(seen).toContain('decline null');
  });

  it('server-everything’s form of 13 fields: the asker is told a Discord form holds 5, and it is declined', async () => {
    const w = await start({ config: everythingServerConfig() });
    let observed = '';
    w.model.enqueue(toolCalls({ name: 'everything__trigger-elicitation-request', arguments: {} }), (request) => {
      observed = lastToolMessage(request);
      return finalAnswer('It could not ask.');
    });
    await w.discord.userSays({
      channelId: w.discord.channels.general,
      author: 'bob',
      content: `${mentionOf(w)} try the form`,
      mentions: [w.discord.botUser.id],
    });
    const thread = await w.discord.waitFor(() => w.discord.threads()[0]);
    await w.discord.waitFor(() =>
      w.discord.botMessages(thread.id).find((message) => message.content.startsWith('It could not ask.')),
    );
    expect(w.discord.botMessages(thread.id).map((message) => message.content)).toContain(
      '**everything__trigger-elicitation-request** asked **Bob** for 13 answers at once; a Discord form holds 5, so the request was declined.',
    );
    expect(observed).toContain('User declined to provide the requested information');
  });
});
