/**
 * /forget-me while the member's run is going (commands/forget-me.ts, ActiveRuns): the run is stopped
 * and settled before anything is deleted, so that nothing it holds of the member is written back or
 * posted after the forget; her message queued behind it never starts a run; another member's run
 * goes on. The tool calls she made herself with /tool go too, and one going on is stopped first. A
 * run of hers cut off by a restart and forgotten while it is being taken up is neither continued nor
 * its reached answer posted.
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
import { type FakeModelServer, finalAnswer, type ScriptedReply, startFakeModelServer } from '../support/fake-model.ts';
import { answer } from '../support/model-servers/brain.ts';
import { compliant } from '../support/model-servers/quirks.ts';

let world: BotWorld;
let server: FakeModelServer | undefined;
let release: () => void = () => {};
afterEach(async () => {
  release();
  await world?.close();
  await server?.close();
  server = undefined;
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

/** Records `answer` as the final answer of the one run in the database, as a run that reached it before it was cut off. */
function answerReachedBy(databasePath: string, answer: string): void {
  const store = openStore(databasePath);
  try {
    const runId = store.db.prepare('SELECT id FROM runs').pluck().get() as string;
    const finalAnswer = JSON.stringify({ answer, tools_used: [], sources: null });
    store.steps.insert({
      run_id: runId,
      sequence: 99,
      kind: 'final-answer',
      model_step: 1,
      message: null,
      tool_name: 'final_answer',
      tool_call_id: 'call_reached',
      arguments: finalAnswer,
      status: 'ok',
      result: finalAnswer,
      error: null,
      error_kind: null,
      prompt_tokens: null,
      completion_tokens: null,
      duration_ms: 1,
      started_at: Date.now(),
    });
  } finally {
    store.close();
  }
}

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

  it.each([
    ['not continued', false],
    ['the answer it reached is not posted', true],
  ])(
    'her run cut off by a restart and forgotten while it is taken up: %s, and what it showed goes',
    async (_, reached) => {
      let restarted!: () => void;
      const back = new Promise<void>((resolve) => (restarted = resolve));
      server = await startFakeModelServer(compliant, { streamPause: { afterChunks: 6, until: () => back } });
      const { logger, lines } = recordingLogger();
      world = await startBotWorld(
        { streamAnswers: true, toolPosts: 'off' },
        {},
        { baseURL: server.baseURL, provider: 'openai' },
        { logger },
      );
      const { discord } = world;
      // One reply scripted: a run continued would ask for another, which fails the test as well.
      server.enqueue(answer(`You said ${adaSaid}. But a restart cuts this answer off.`));
      const { thread } = await askInGeneral(world, `my code word is ${adaSaid}`);
      const shown = await discord.waitFor(() => discord.botMessages(thread.id)[0], { what: 'the first words shown' });
      // After the restart, taking the run up first fetches the message it was showing: held there.
      const fetchPath = `/channels/${thread.id}/messages/${shown.id}`;
      let fetched!: () => void;
      const held = new Promise<void>((resolve) => (fetched = resolve));
      await world.restart({
        graceMs: 0,
        whileDown: async () => {
          discord.holdNext({ method: 'GET', path: new RegExp(`^${fetchPath}$`), ms: 0, until: held });
          // Or it had reached its answer (recorded) when it was cut off: taken up, that answer is posted.
          if (reached) answerReachedBy(world.databasePath, `You said ${adaSaid}.`);
        },
      });
      restarted();
      await discord.waitFor(() => discord.requests.some((request) => request.path === fetchPath), {
        what: 'the cut-off run being taken up',
      });

      const reply = await adaForgets(world, thread.id);
      fetched();
      await world.bot.queues.idle();

      expect(reply.content).toContain('Deleted for good, in this server:\n- 1 message you wrote');
      expect(server.requests).toHaveLength(1);
      expect(discord.botMessages(thread.id)).toEqual([]);
      expect(lines.filter((line) => line.level === 'error')).toEqual([]);
      expect(lines.map((line) => line.msg)).toContain('interrupted run not taken up: it was forgotten meanwhile');
      for (const rows of rowsOf(world)) expect(rows).not.toContain(adaSaid);
    },
  );

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
