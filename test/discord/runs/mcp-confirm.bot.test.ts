/**
 * A destructive MCP tool (the test server's `delete`, `destructiveHint: true`) through the bot: the
 * call waits for the Confirm of the person whose message started the run, posted with buttons in the
 * thread (or a moderator's); another member's press is refused privately; Cancel and the timeout each stop the call.
 * The outcome is in the step log and goes to `onDestructiveTool`.
 */
import { PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import type { DestructiveToolEvent } from '../../../src/discord/runs/tool-confirmation.ts';
import { askInGeneral, type BotWorld, waitForBotPosts, waitForQuestion } from '../../support/bot-harness.ts';
import { testServerConfig } from '../../support/mcp-test-server.ts';
import { useMcpWorld } from '../../support/mcp-world.ts';
import { moderatorRole, settings, worldHolder } from '../../support/place-settings-world.ts';
import {
  type ChatRequest,
  finalAnswer,
  lastToolMessage,
  type ScriptedReply,
  toolCalls,
} from '../../support/fake-model.ts';

const mcp = useMcpWorld();

async function start(options: { toolConfirmMs?: number } = {}) {
  const heard: DestructiveToolEvent[] = [];
  const w = await mcp.start(
    testServerConfig('test'),
    { toolConfirmMs: options.toolConfirmMs ?? 60_000, moderatorRoleIds: [moderatorRole] },
    {},
    {},
    { onDestructiveTool: (event) => heard.push(event), logPaceMs: 20 },
  );
  worldHolder.world = w;
  return { w, heard };
}

/** Bob asks for a deletion; the model calls `test__delete`; resolves with the question once it is posted. */
async function bobAsksToDelete(w: BotWorld, then: (request: ChatRequest) => ScriptedReply) {
  w.model.enqueue(toolCalls({ name: 'test__delete', arguments: { what: 'the notes' } }), then);
  const { thread } = await askInGeneral(w, 'delete the notes', 'bob');
  const { message: question, buttonId } = await waitForQuestion(w, thread.id);
  return { thread, question, customId: (name: 'confirm' | 'cancel') => buttonId(name) };
}

function deleteStep(w: BotWorld) {
  const [run] = w.store.runs.recent(null, 1);
  return w.store.steps.ofRun(run!.id).find((step) => step.tool_name === 'test__delete')!;
}

describe('a destructive MCP tool in Discord', () => {
  it('waits for the asker’s Confirm: another member’s press is refused privately, then it runs; logged and heard', async () => {
    const { w, heard } = await start();
    let observed = '';
    const { thread, question, customId } = await bobAsksToDelete(w, (request) => {
      observed = lastToolMessage(request);
      return finalAnswer('Deleted.', ['test__delete']);
    });
    expect(question.content).toContain('**Bob**, I want to run **test__delete**, which may change or delete things');
    expect(question.content).toContain('{"what":"the notes"}');

    // Carol, a member who is no moderator (Ada is one).
    const carol = await w.discord.userPressesMessageButton({
      channelId: thread.id,
      messageId: question.id,
      customId: customId('confirm'),
      author: { id: '100000000000000777', username: 'carol' },
    });
    expect(await carol.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Only the person who asked (or a moderator) can confirm or cancel this.',
    });
    expect(w.model.requests).toHaveLength(1); // still waiting

    const bob = await w.discord.userPressesMessageButton({
      channelId: thread.id,
      messageId: question.id,
      customId: customId('confirm'),
      author: 'bob',
    });
    await bob.waitForReply();
    const posts = await waitForBotPosts(w, thread.id, 3);
    expect(posts.at(-1)!.content).toContain('Deleted.');
    expect(observed).toBe('deleted the notes');
    const closed = w.discord.botMessages(thread.id).find((message) => message.id === question.id)!;
    expect(closed.content).toBe('✅ Confirmed by Bob: running (**test__delete**)');
    expect(closed.components).toEqual([]);

    const bobId = w.discord.users.bob;
    expect(deleteStep(w)).toMatchObject({ status: 'ok', note: `confirmed by Bob (${bobId})` });
    expect(heard).toEqual([
      expect.objectContaining({
        tool: 'test__delete',
        arguments: '{"what":"the notes"}',
        guildId: w.discord.guildId,
        channelId: thread.id,
        asker: expect.objectContaining({ id: bobId }),
        outcome: { decision: 'confirmed', by: { id: bobId, displayName: 'Bob' } },
      }),
    ]);
  });

  it('a moderator elsewhere is judged where the question is, wherever the press comes from', async () => {
    const { w } = await start();
    const { thread, question, customId } = await bobAsksToDelete(w, () => finalAnswer('Deleted.', ['test__delete']));
    // Carol moderates #random only (Manage Messages there, by a channel overwrite), not #general.
    const carol = { id: '100000000000000777', username: 'carol' };
    const { random } = w.discord.channels;
    await w.discord.setChannelOverwrites(random, [
      { id: carol.id, type: 1, allow: PermissionFlagsBits.ManageMessages, deny: 0n },
    ]);
    const elsewhere = await w.discord.createThread(random, 'elsewhere', carol.id);
    const there = await w.discord.userSays({ channelId: elsewhere.id, author: carol, content: 'hello' });
    // A copy of the question's Confirm on a message in her thread: Discord would refuse it; the bot must too.
    const forged = await w.discord.userPressesMessageButton({
      channelId: elsewhere.id,
      messageId: there.id,
      customId: customId('confirm'),
      author: carol,
      forged: true,
    });
    expect(await forged.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Only the person who asked (or a moderator) can confirm or cancel this.',
    });
    expect(w.model.requests).toHaveLength(1); // not run: still waiting
    await (
      await w.discord.userPressesMessageButton({
        channelId: thread.id,
        messageId: question.id,
        customId: customId('confirm'),
        author: 'bob',
      })
    ).waitForReply();
    await waitForBotPosts(w, thread.id, 3);
    expect(deleteStep(w)).toMatchObject({ status: 'ok', note: `confirmed by Bob (${w.discord.users.bob})` });
  });

  it('a moderator of the place may answer for the asker: the step log and the question name the moderator', async () => {
    const { w, heard } = await start();
    const { thread, question, customId } = await bobAsksToDelete(w, () => finalAnswer('Deleted.', ['test__delete']));
    await (
      await w.discord.userPressesMessageButton({
        channelId: thread.id,
        messageId: question.id,
        customId: customId('confirm'),
        author: 'ada',
      })
    ).waitForReply();
    await w.discord.waitFor(() =>
      w.discord.botMessages(thread.id).find((message) => message.content.startsWith('Deleted.')),
    );
    const closed = w.discord.botMessages(thread.id).find((message) => message.id === question.id)!;
    expect(closed.content).toBe('✅ Confirmed by Ada: running (**test__delete**)');
    const adaId = w.discord.users.ada;
    expect(deleteStep(w)).toMatchObject({ status: 'ok', note: `confirmed by Ada (${adaId})` });
    expect(heard.map((event) => event.outcome)).toEqual([
      { decision: 'confirmed', by: { id: adaId, displayName: 'Ada' } },
    ]);
  });

  it('Cancel: the tool is not run, the model is told who cancelled it, and the log channel hears of it', async () => {
    const { w, heard } = await start();
    const logChannel = await w.discord.createChannel('mod-log');
    await settings('log-channel', w.discord.channels.general, { channel: logChannel });
    let observed = '';
    const { thread, question, customId } = await bobAsksToDelete(w, (request) => {
      observed = lastToolMessage(request);
      return finalAnswer('I left the notes alone.');
    });
    expect(question.content).toContain('Confirm within 60 seconds, or it is cancelled.');
    await w.discord.userPressesMessageButton({
      channelId: thread.id,
      messageId: question.id,
      customId: customId('cancel'),
      author: 'bob',
    });
    await w.discord.waitFor(() =>
      w.discord.botMessages(thread.id).find((message) => message.content.startsWith('I left the notes alone.')),
    );
    expect(observed).toBe(
      'Not executed: test__delete needs the confirmation of the person who asked, and Bob cancelled it. Do not call it again unless they ask you to.',
    );
    expect(deleteStep(w)).toMatchObject({ status: 'error', error_kind: 'not-confirmed' });
    expect(heard.map((event) => event.outcome.decision)).toEqual(['cancelled']);
    const card = await w.discord.waitFor(() =>
      w.discord
        .botMessages(logChannel)
        .flatMap((message) => message.embeds as { title: string; description: string }[])
        .find((embed) => embed.title.startsWith('↩️ Cancelled')),
    );
    expect(card).toMatchObject({
      title: '↩️ Cancelled: test__delete',
      description: `by <@${w.discord.users.bob}> (Bob) in <#${thread.id}>`,
    });
  });

  it('no answer in time cancels the call; the question says so and takes no more presses', async () => {
    const { w, heard } = await start({ toolConfirmMs: 300 });
    let observed = '';
    const { thread, question, customId } = await bobAsksToDelete(w, (request) => {
      observed = lastToolMessage(request);
      return finalAnswer('Nobody confirmed.');
    });
    await w.discord.waitFor(() =>
      w.discord.botMessages(thread.id).find((message) => message.content.startsWith('Nobody confirmed.')),
    );
    expect(observed).toContain('nobody confirmed it in time');
    const closed = w.discord.botMessages(thread.id).find((message) => message.id === question.id)!;
    expect(closed.content).toBe('⌛ Not confirmed within 0.3 seconds: not run (**test__delete**)');
    expect(deleteStep(w)).toMatchObject({ error_kind: 'not-confirmed', note: 'not confirmed in time: cancelled' });
    expect(heard.map((event) => event.outcome)).toEqual([{ decision: 'timed-out', by: null }]);
    await expect(
      w.discord.userPressesMessageButton({
        channelId: thread.id,
        messageId: question.id,
        customId: customId('confirm'),
        author: 'bob',
      }),
    ).rejects.toThrow(/has no button/);
  });

  it('a restart while the question is open: the tool is not run, and the run taken up asks again; the tool runs once', async () => {
    const { w } = await start();
    w.model.enqueue(toolCalls({ name: 'test__delete', arguments: { what: 'the notes' } }));
    const { thread } = await askInGeneral(w, 'delete the notes', 'bob');
    const { message: first } = await waitForQuestion(w, thread.id);
    let toldAfterRestart = '';
    let ranAfterConfirm = '';
    await w.restart({
      graceMs: 0,
      whileDown: async () => {
        // The run taken up at the next start asks the model again, which calls the tool again.
        w.model.enqueue(
          (request) => {
            toldAfterRestart = lastToolMessage(request);
            return toolCalls({ name: 'test__delete', arguments: { what: 'the notes' } });
          },
          (request) => {
            ranAfterConfirm = lastToolMessage(request);
            return finalAnswer('Deleted.', ['test__delete']);
          },
        );
      },
    });
    const { message: second, buttonId } = await waitForQuestion(w, thread.id, first.id);
    await w.discord.userPressesMessageButton({
      channelId: thread.id,
      messageId: second.id,
      customId: buttonId('confirm'),
      author: 'bob',
    });
    await w.discord.waitFor(() =>
      w.discord.botMessages(thread.id).find((message) => message.content.startsWith('Deleted.')),
    );
    expect(toldAfterRestart).toMatch(/^Not executed/);
    expect(ranAfterConfirm).toBe('deleted the notes');
    // Ran once in all: one delete step ran ok, the first was not run.
    const deletes = w.store.db
      .prepare("SELECT status, error_kind FROM steps WHERE tool_name = 'test__delete' ORDER BY id")
      .all();
    expect(deletes).toEqual([
      { status: 'error', error_kind: 'not-confirmed' },
      { status: 'ok', error_kind: null },
    ]);
  });
});
