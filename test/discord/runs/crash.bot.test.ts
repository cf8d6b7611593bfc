import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../db/store.ts';
import { nonceFor } from '../../../src/discord/outbound/send.ts';
import type { BotProcess } from '../../support/bot-process.ts';
import { useBotProcessWorld } from '../../support/bot-process-world.ts';
import { answer as streamed } from '../../support/model-servers/brain.ts';
import { compliant } from '../../support/model-servers/quirks.ts';
import { finalAnswer, startFakeModelServer, toolCalls } from '../../support/fake-model.ts';

const world = useBotProcessWorld('crash-');
let bot: BotProcess | undefined;
afterEach(() => {
  bot = undefined;
});

async function crash(): Promise<void> {
  bot!.child.kill('SIGKILL');
  await bot!.exited;
}

/** Ada mentions the bot in #general. */
const adaMentions = (text: string) =>
  world.discord.userSays({
    channelId: world.discord.channels.general,
    author: 'ada',
    content: `<@${world.discord.botUser.id}> ${text}`,
    mentions: [world.discord.botUser.id],
  });

const botTexts = (channelId: string) => world.discord.botMessages(channelId).map((message) => message.content);

/** What the database says of the runs and tool calls, read after the bot is gone. */
function log() {
  const store = openStore(world.databasePath);
  const runs = store.db.prepare('SELECT id, status, resumed_from FROM runs ORDER BY started_at, rowid').all() as {
    id: string;
    status: string;
    resumed_from: string | null;
  }[];
  const toolCalls = store.db
    .prepare("SELECT tool_call_id FROM steps WHERE kind = 'tool-call'")
    .pluck()
    .all() as string[];
  store.close();
  return { runs, toolCalls };
}

/** The step log's status of a tool call, read from another connection while the bot runs. */
function toolCallStatus(callId: string): string | undefined {
  const reader = new BetterSqlite3(world.databasePath, { readonly: true });
  try {
    return reader.prepare('SELECT status FROM steps WHERE tool_call_id = ?').pluck().get(callId) as string | undefined;
  } finally {
    reader.close();
  }
}

describe('SIGKILL at chosen points, then a restart', () => {
  it('while waiting for the model: the run is taken up, answered once, and messages sent while down are answered after', async () => {
    world.model.enqueue({ hang: true });
    bot = await world.start();
    await adaMentions('hello?');
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.model.requests.length === 1, { what: 'the model asked' });
    await crash();
    await world.discord.userSays({ channelId: thread.id, author: 'ada', content: 'are you there?' });

    world.model.enqueue(
      (request) => {
        expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: hello?' });
        return finalAnswer('Hello, once.');
      },
      (request) => {
        expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: are you there?' });
        return finalAnswer('Yes, I am back.');
      },
    );
    bot = await world.start();
    await world.discord.waitFor(() => botTexts(thread.id).length === 2, { what: 'two answers' });
    await crash();

    expect(botTexts(thread.id)).toEqual(['Hello, once.', 'Yes, I am back.']);
    const { runs } = log();
    expect(runs.map((run) => run.status)).toEqual(['interrupted', 'answered', 'answered']);
    expect(runs[1]!.resumed_from).toBe(runs[0]!.id);
  });

  it('between two tool steps: the finished tool call is not run again, and the answer comes once', async () => {
    world.model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6*7' }, id: 'call_once' }), {
      hang: true,
    });
    bot = await world.start();
    await adaMentions('6*7?');
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.model.requests.length === 2, { what: 'the second model call' });
    // Its result is written while the model works on the second call (run-log/write-behind.ts).
    await world.discord.waitFor(() => toolCallStatus('call_once') === 'ok', { what: 'the tool call recorded' });
    await crash();

    world.model.enqueue((request) => {
      expect(request.messages.slice(-3)).toEqual([
        { role: 'user', content: 'Ada: 6*7?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_once', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_once', content: '42' },
      ]);
      return finalAnswer('42', ['calculator']);
    });
    bot = await world.start();
    await world.discord.waitFor(() => botTexts(thread.id).includes('42\n-# 🔧 calculator'), { what: 'the answer' });
    await crash();

    expect(botTexts(thread.id)).toEqual(['🔧 **calculator** `{"expression":"6*7"}` → `42`', '42\n-# 🔧 calculator']);
    expect(log().toolCalls).toEqual(['call_once']);
  });

  it('while the thread is being created: the question is answered in that thread after the restart', async () => {
    bot = await world.start();
    // The thread is made, but the bot dies before it hears so. Its run starts meanwhile (it does not
    // wait for the thread): its model call is held too, so that the bot dies in both for certain.
    world.model.enqueue({ hang: true });
    world.discord.holdResponsesMs = 10_000;
    await adaMentions('are you there?');
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => world.model.requests.length === 1, { what: 'the model asked meanwhile' });
    await crash();
    world.discord.holdResponsesMs = 0;

    world.model.enqueue((request) => {
      expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: are you there?' });
      return finalAnswer('Yes, here.');
    });
    bot = await world.start();
    await world.discord.waitFor(() => botTexts(thread.id).length === 1, { what: 'the answer in the thread' });
    await world.discord.userSays({ channelId: thread.id, author: 'ada', content: 'good' });
    world.model.enqueue(finalAnswer('Glad to hear it.'));
    await world.discord.waitFor(() => botTexts(thread.id).length === 2, { what: 'the thread still a conversation' });
    await crash();

    expect(botTexts(thread.id)).toEqual(['Yes, here.', 'Glad to hear it.']);
  });

  it('just after the answer is posted, before the bot heard back: no second answer', async () => {
    world.model.enqueue(() => {
      // The answer's POST takes effect, but its response is held: the bot dies before it arrives.
      world.discord.holdResponsesMs = 10_000;
      return finalAnswer('Posted once.');
    });
    bot = await world.start();
    await adaMentions('once');
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await world.discord.waitFor(() => botTexts(thread.id).includes('Posted once.'), { what: 'the answer posted' });
    await crash();
    world.discord.holdResponsesMs = 0;

    bot = await world.start();
    await bot.waitForLog('interrupted run: its answer is posted');
    await crash();

    expect(botTexts(thread.id)).toEqual(['Posted once.']);
    // Not even tried again: Discord's nonce check lasts minutes, a restart may take longer.
    expect(
      world.discord.requests.filter(
        (request) => request.method === 'POST' && request.path === `/channels/${thread.id}/messages`,
      ),
    ).toHaveLength(1);
    expect(log().runs.map((run) => run.status)).toEqual(['answered']);
  });

  it('just after the first words of an answer are posted, before the bot heard back: the message is found and finished, not posted again', async () => {
    const writer = await startFakeModelServer(compliant, { models: ['gpt-4.1-mini'] });
    try {
      const text = 'Found again. The answer is finished in the message the killed process posted.';
      writer.enqueue(() => {
        // Every answer from Discord is held from now on: the bot dies before it hears of its post.
        world.discord.holdResponsesMs = 10_000;
        return streamed(text);
      });
      const env = { STREAM_ANSWERS: 'on', MODEL_PROVIDER: 'openai' };
      bot = await world.start(env, { model: writer });
      await adaMentions('go');
      const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
      const partial = await world.discord.waitFor(() => world.discord.botMessages(thread.id)[0], {
        what: 'the first words posted',
      });
      await crash();
      world.discord.holdResponsesMs = 0;
      // Its model call was not held: the run had its answer; only its post's id never came back.
      expect(log().runs.map((run) => run.status)).toEqual(['answered']);

      bot = await world.start(env, { model: writer });
      await world.discord.waitFor(() => botTexts(thread.id).join('') === text, {
        what: 'the answer finished in place',
      });
      await crash();

      expect(world.discord.botMessages(thread.id).map((message) => message.id)).toEqual([partial.id]);
      expect(
        world.discord.requests.filter(
          (request) => request.method === 'POST' && request.path === `/channels/${thread.id}/messages`,
        ),
      ).toHaveLength(1);
    } finally {
      await writer.close();
    }
  });

  it('while the answer is being shown (STREAM_ANSWERS): after the restart the same message is finished, not posted again', async () => {
    let killed!: () => void;
    const afterKill = new Promise<void>((resolve) => (killed = resolve));
    // The model stops writing after its first sentence until the bot is dead.
    const writer = await startFakeModelServer(compliant, {
      models: ['gpt-4.1-mini'],
      streamPause: { afterChunks: 6, until: () => afterKill },
    });
    try {
      const second = 'Back again. This time the answer is written to its end.';
      writer.enqueue(streamed('Begun. But this answer is cut off by a kill.'), streamed(second));
      const env = { STREAM_ANSWERS: 'on', MODEL_PROVIDER: 'openai' };
      bot = await world.start(env, { model: writer });
      await adaMentions('go');
      const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
      const partial = await world.discord.waitFor(() => world.discord.botMessages(thread.id)[0], {
        what: 'the first words shown',
      });
      await crash();
      killed();

      bot = await world.start(env, { model: writer });
      await world.discord.waitFor(() => botTexts(thread.id).join('') === second, {
        what: 'the answer finished in place',
      });
      await crash();

      expect(world.discord.botMessages(thread.id).map((message) => message.id)).toEqual([partial.id]);
      // Never posted again, not even under the same nonce: the message was found, then edited.
      expect(
        world.discord.requests.filter(
          (request) => request.method === 'POST' && request.path === `/channels/${thread.id}/messages`,
        ),
      ).toHaveLength(1);
      expect(log().runs.map((run) => run.status)).toEqual(['interrupted', 'answered']);
    } finally {
      await writer.close();
    }
  });
});

/**
 * `npm start` killed (SIGKILL) after Discord took a reminder's post but before the bot heard back:
 * the restart's attempt finds it in the channel and does not post it again, so the channel shows
 * the reminder once. (A kill before the post reached Discord is in
 * test/tools/remind-me.test.ts, with the claim left in the database as the dead process leaves it.)
 */
function reminderRun(id: number) {
  const store = openStore(world.databasePath);
  try {
    return store.schedules.runsOf(id)[0];
  } finally {
    store.close();
  }
}

it('SIGKILL between the post and its answer: after the restart the reminder is in the channel once, and marked delivered', async () => {
  const channelId = world.discord.channels.general;
  const store = openStore(world.databasePath);
  const id = store.schedules.addReminder({
    guildId: world.discord.guildId,
    channelId,
    userId: world.discord.users.bob,
    userName: 'Bob',
    text: 'water the plants',
    dueAt: Date.now(),
  });
  store.close();
  // The post takes effect at once; its answer would come a minute later.
  world.discord.holdNext({ method: 'POST', path: new RegExp(`^/channels/${channelId}/messages$`), ms: 60_000 });

  bot = await world.start();
  const [posted] = await world.discord.waitFor(
    () => world.discord.botMessages(channelId).length === 1 && world.discord.botMessages(channelId),
    { what: 'the post taken by Discord' },
  );
  await crash();
  expect(reminderRun(id)).toMatchObject({ attempts: 1, claimed_by: expect.any(String), state: 'claimed' });

  bot = await world.start();
  await bot.waitForLog('reminder already in its channel; not posted again');
  await crash();

  // The second attempt read the channel and found the first's post: nothing was sent again.
  expect(world.discord.botMessages(channelId)).toEqual([posted]);
  const bodies = world.discord.requests
    .filter((request) => request.method === 'POST' && request.path === `/channels/${channelId}/messages`)
    .map((request) => request.body as { nonce?: string; enforce_nonce?: boolean });
  const run = reminderRun(id)!;
  expect(bodies).toEqual([
    expect.objectContaining({ nonce: nonceFor(`reminder-run:${run.id}`, 0), enforce_nonce: true }),
  ]);
  expect(run).toMatchObject({ attempts: 2, claimed_by: null, state: 'posted' });
});
