/**
 * /forget-me while the member's run is going (commands/forget-me.ts, ActiveRuns): the run is stopped
 * and settled before anything is deleted, so that nothing it holds of the member is written back or
 * posted after the forget; her message queued behind it never starts a run; another member's run
 * goes on. The tool calls she made herself with /tool go too, and one going on is stopped first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { forgetMember } from '../../db/forget-member.ts';
import { openStore } from '../../db/store.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { defineTool } from '../../tools/define-tool.ts';
import {
  askInGeneral,
  type BotWorld,
  recordingLogger,
  startBotWorld,
  waitForBotPosts,
} from '../support/bot-harness.ts';
import { answeredConversation } from '../support/command-world.ts';
import { finalAnswer, type ScriptedReply } from '../support/fake-model.ts';

let world: BotWorld;
let release: () => void = () => {};
afterEach(async () => {
  release();
  await world?.close();
});

const adaSaid = 'ZEBRAQUARTZ';

/** `reply`, held by the model until `released` resolves: a model call in progress. */
function heldUntil(released: Promise<void>, reply: ScriptedReply): ScriptedReply {
  return {
    headers: { 'content-type': 'application/json' },
    async *bodyPieces() {
      await released;
      yield JSON.stringify(reply.body);
    },
  };
}

function holdNext(world: BotWorld, reply: ScriptedReply): void {
  const released = new Promise<void>((resolve) => (release = resolve));
  world.model.enqueue(heldUntil(released, reply));
}

/** Ada's `/forget-me confirm: True` in the channel, and its reply. */
async function adaForgets(world: BotWorld, channelId: string) {
  const forgot = await world.discord.userRunsCommand({
    name: 'forget-me',
    author: 'ada',
    channelId,
    options: { confirm: true },
  });
  return forgot.waitForReply();
}

/** Every row of the tables a run writes, as text. */
const rowsOf = (world: BotWorld) =>
  ['messages', 'steps', 'runs'].map((table) => JSON.stringify(world.store.db.prepare(`SELECT * FROM ${table}`).all()));

describe('/forget-me during the member’s run', () => {
  it('stops her run first: nothing she said is written or posted after the forget, and her queued message is never run', async () => {
    const { logger, lines } = recordingLogger();
    world = await startBotWorld({}, {}, {}, { logger });
    const { discord, model, store } = world;
    // Were the run let go on, its answer would quote her.
    holdNext(world, finalAnswer(`You said ${adaSaid}.`));
    const { asked, thread } = await askInGeneral(world, `my code word is ${adaSaid}`);
    await discord.waitFor(() => model.requests.length === 1, { what: 'her run calling the model' });
    const later = await discord.userSays({ channelId: thread.id, author: 'ada', content: `and ${adaSaid} again` });
    const userRows = store.db.prepare("SELECT count(*) FROM messages WHERE role = 'user'").pluck();
    await discord.waitFor(() => userRows.get() === 2, { what: 'her second message stored (queued behind the run)' });

    const reply = await adaForgets(world, thread.id);
    release();
    await world.handled('message', asked.id, later.id);

    expect(lines.filter((line) => line.msg === 'run stopped')).toHaveLength(1);
    expect(lines.filter((line) => line.msg === 'run ended' || line.msg === 'run failed')).toEqual([]);
    // The stopped run says what a stopped run says; the queued message never reached the model.
    expect(discord.botMessages(thread.id).map((message) => message.content)).toEqual([
      'Stopped before an answer was reached.',
    ]);
    expect(model.requests).toHaveLength(1);
    for (const rows of rowsOf(world)) expect(rows).not.toContain(adaSaid);
    expect(reply.content).toContain('Deleted for good, in this server:\n- 2 messages you wrote');
    expect(reply.content).toContain('\n- 1 answer I was still writing for you, stopped first\n');
  });

  it('in a DM: stops her run there before forgetting our direct messages', async () => {
    world = await startBotWorld({ allowDms: true });
    const { discord, model } = world;
    holdNext(world, finalAnswer(`You said ${adaSaid}.`));
    const asked = await discord.userSaysInDm({ author: 'ada', content: `my code word is ${adaSaid}` });
    await discord.waitFor(() => model.requests.length === 1, { what: 'her run calling the model' });

    const dm = discord.dmChannelOf('ada');
    const reply = await adaForgets(world, dm);
    release();
    await world.handled('message', asked.id);

    expect(discord.botMessages(dm).map((message) => message.content)).toEqual([
      'Stopped before an answer was reached.',
    ]);
    for (const rows of rowsOf(world)) expect(rows).not.toContain(adaSaid);
    expect(reply.content).toContain(
      'Deleted for good, of our direct messages:\n- 1 message you wrote, with 0 images\n- 1 answer I was still writing for you, stopped first\n',
    );
  });

  it("the operator's forget (another connection, as `npm run forget`) during her run: its answer is not posted", async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    holdNext(world, finalAnswer(`You said ${adaSaid}.`));
    const { asked, thread } = await askInGeneral(world, `my code word is ${adaSaid}`);
    await discord.waitFor(() => model.requests.length === 1, { what: 'her run calling the model' });

    // What src/forget.ts does in each server: it cannot reach the bot's runs, only the database.
    const operator = openStore(world.databasePath);
    try {
      expect(forgetMember(operator.db, discord.guildId, discord.users.ada).counts.runs).toBe(1);
    } finally {
      operator.close();
    }
    release();
    await world.handled('message', asked.id);

    expect(discord.botMessages(thread.id)).toEqual([]);
    for (const rows of rowsOf(world)) expect(rows).not.toContain(adaSaid);
  });

  it("does not stop another member's run in the same server", async () => {
    world = await startBotWorld();
    const { discord, model } = world;
    await answeredConversation(world, `my code word is ${adaSaid}`, 'Noted.');
    holdNext(world, finalAnswer('Hello Bob.'));
    const { asked, thread } = await askInGeneral(world, 'hello, Bob here', 'bob');
    await discord.waitFor(() => model.requests.length === 2, { what: "Bob's run calling the model" });

    const reply = await adaForgets(world, discord.channels.general);
    release();
    await world.handled('message', asked.id);

    expect(reply.content).toContain('Deleted for good, in this server:\n- 1 message you wrote');
    expect(reply.content).not.toContain('stopped');
    expect((await waitForBotPosts(world, thread.id, 1)).map((message) => message.content)).toEqual(['Hello Bob.']);
  });
});

/** A tool that says its text back; `held` makes it wait until released or stopped. */
function echoTool(held?: { entered: () => void; released: Promise<void>; stopped: (reason: unknown) => void }) {
  return defineTool({
    name: 'echo',
    description: 'Says the text back.',
    parameters: z.object({ text: z.string() }),
    async execute({ text }, context) {
      if (held) {
        held.entered();
        const signal = context.signal;
        await Promise.race([
          held.released,
          new Promise((resolve) => signal.addEventListener('abort', () => resolve(held.stopped(signal.reason)))),
        ]);
      }
      return `echo: ${text}`;
    },
  });
}

describe('/forget-me and the tool calls she made with /tool', () => {
  it("deletes hers (her arguments in the step log, the call and its result in the thread's memory), not Bob's", async () => {
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([echoTool()]) });
    const { discord } = world;
    const thread = await answeredConversation(world);
    for (const [author, text] of [
      ['ada', adaSaid],
      ['bob', 'KEEPBOB'],
    ] as const) {
      const call = await discord.userRunsCommand({
        name: 'tool',
        subcommand: 'echo',
        options: { text },
        author,
        channelId: thread.id,
      });
      expect((await call.waitForReply()).content).toContain(`echo: ${text}`);
    }

    const reply = await adaForgets(world, thread.id);

    expect(reply.content).toContain('\n- 1 tool call you made with /tool\n');
    for (const rows of rowsOf(world)) expect(rows).not.toContain(adaSaid);
    expect(rowsOf(world).join('')).toContain('KEEPBOB');
  });

  it('stops her /tool call going on and waits for its reply before deleting it', async () => {
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => (entered = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const stops: unknown[] = [];
    const held = { entered, released, stopped: (reason: unknown) => void stops.push(reason) };
    world = await startBotWorld({}, {}, {}, { tools: buildToolRegistry([echoTool(held)]) });
    const { discord } = world;
    const thread = await answeredConversation(world);
    const call = await discord.userRunsCommand({
      name: 'tool',
      subcommand: 'echo',
      options: { text: adaSaid },
      author: 'ada',
      channelId: thread.id,
    });
    await inTool;

    const reply = await adaForgets(world, thread.id);
    const posted = await call.waitForReply();

    expect(stops).toHaveLength(1);
    expect(posted.content).toContain('Cancelled');
    expect(reply.content).toContain('\n- 1 tool call you made with /tool\n');
    for (const rows of rowsOf(world)) expect(rows).not.toContain(adaSaid);
  });
});
