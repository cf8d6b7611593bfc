/**
 * Long threads keep their thread (issue 26): the turns that fall out of the memory window are
 * summed up by the place's model after the answer is posted, and the summary opens the window.
 * A small window (200 tokens) makes a couple of dozen messages a long thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { askInGeneral, type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import type { RunRow } from '../../../db/runs.ts';
import { formatRunDetail } from '../../../src/terminal/steps-report.ts';
import { apiError, type ChatRequest, finalAnswer, type ScriptedReply, toolCalls } from '../../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world.close();
});

const smallWindow = { tokenBudget: 200, messageTokenCap: 100 };
const earlier = 'Earlier in this conversation: ';

const isSummaryCall = (request: ChatRequest) => JSON.stringify(request.tool_choice ?? null).includes('write_summary');

/** A model that sums up as a good one would for these tests: it keeps the password it was told. */
function summaryOf(request: ChatRequest): ScriptedReply {
  const asked = request.messages.at(-1)?.content ?? '';
  const facts = [...new Set(asked.match(/password is \w+/g) ?? [])];
  return toolCalls({
    name: 'write_summary',
    arguments: { summary: facts.length > 0 ? `Ada said the ${facts.join(' and the ')}.` : 'Small talk only.' },
  });
}

/** Requests that answered people (not summary calls), in order. */
const answerCalls = () => world.model.requests.filter((request) => !isSummaryCall(request));
const summaryCalls = () => world.model.requests.filter(isSummaryCall);
/** What the opening of the window said, in the newest answer call (null: no summary). */
/** Whether the newest answer call's conversation (the system prompt aside: it names the thread) mentions `text`. */
const lastAnswerMentions = (text: string) =>
  answerCalls()
    .at(-1)!
    .messages.some((message) => message.role !== 'system' && message.content?.includes(text));
const openingOfLastAnswer = () => {
  const opening = answerCalls().at(-1)!.messages[1]!.content ?? '';
  return opening.startsWith(earlier) ? opening : null;
};

/** Starts the bot with a small window, asks a question with the password, and talks on for `messages` more. */
async function longThread(options: { summaries?: boolean; messages?: number } = {}) {
  world = await startBotWorld({}, {}, {}, { memory: { ...smallWindow, summaries: options.summaries } });
  world.model.otherwise((request) => (isSummaryCall(request) ? summaryOf(request) : finalAnswer('Noted.')));
  const { asked, thread } = await askInGeneral(world, 'remember this: the password is swordfish');
  await world.handled('message', asked.id);
  for (let index = 1; index <= (options.messages ?? 24); index++) await say(thread.id, index);
  return { asked, thread };
}

async function say(threadId: string, index: number | string) {
  const said = await world.discord.userSays({
    channelId: threadId,
    author: 'ada',
    content: `message ${index}: nothing much to say about the weather today, thanks`,
  });
  await world.handled('message', said.id);
}

describe('memory summaries', () => {
  it('keeps a fact of the first message in the summary the model receives, across a restart; the answer is posted before the summary call', async () => {
    const { thread } = await longThread();
    world.model.otherwise((request) => {
      if (!isSummaryCall(request)) return finalAnswer('Noted.');
      // Every answer asked for so far is posted before a summary call is made.
      expect(world.discord.botMessages(thread.id)).toHaveLength(answerCalls().length);
      return summaryOf(request);
    });
    await say(thread.id, 'after the check');
    expect(summaryCalls().length).toBeGreaterThanOrEqual(2);
    await world.restart();
    await say(thread.id, 'after the restart');

    expect(openingOfLastAnswer()).toBe(`${earlier}Ada said the password is swordfish.`);
    // The first message itself fell out of the window: the summary alone carries it.
    expect(lastAnswerMentions('remember this')).toBe(false);
    // Its runs are in the step log as summary runs, their tokens counted as any run's.
    const summaryRuns = world.store.db
      .prepare("SELECT status, total_tokens FROM runs WHERE kind = 'summary'")
      .all() as { status: string; total_tokens: number }[];
    expect(summaryRuns.length).toBe(summaryCalls().length);
    expect(summaryRuns.every((run) => run.status === 'answered' && run.total_tokens > 0)).toBe(true);
    const newest = world.store.db
      .prepare("SELECT * FROM runs WHERE kind = 'summary' ORDER BY started_at DESC LIMIT 1")
      .get() as RunRow;
    const detail = formatRunDetail({ run: newest, conversation: null, steps: world.store.steps.ofRun(newest.id) });
    expect(detail).toMatch(/status\s+summary answered/);
    expect(detail).toContain('Ada said the password is swordfish.');
  });

  it('rebuilds the summary when a summed-up message is edited, and /reset clears it', async () => {
    const { asked, thread } = await longThread();
    expect(openingOfLastAnswer()).toContain('swordfish');
    await world.discord.userEdits(
      world.discord.channels.general,
      asked.id,
      `${mentionOf(world)} remember this: the password is marlin`,
    );
    await world.handled('edit', asked.id);
    const conversation = world.store.conversations.byKey(`discord:${thread.id}`)!;
    expect(world.store.summaries.of(conversation.id)).toMatchObject({ stale: 1, summary: '' });
    await say(thread.id, 'after the edit');
    // Stale: the window works as without a summary; the summary is rebuilt after that answer.
    expect(openingOfLastAnswer()).toBeNull();
    await say(thread.id, 'after the rebuild');
    expect(openingOfLastAnswer()).toBe(`${earlier}Ada said the password is marlin.`);

    const reset = await world.discord.userRunsCommand({ name: 'reset', author: 'ada', channelId: thread.id });
    await reset.waitForReply();
    expect(world.store.summaries.of(conversation.id)).toBeUndefined();
    await say(thread.id, 'after the reset');
    expect(openingOfLastAnswer()).toBeNull();
    expect(lastAnswerMentions('password')).toBe(false);
  });

  it('drops old turns as before with MEMORY_SUMMARY=off', async () => {
    await longThread({ summaries: false });
    expect(summaryCalls()).toEqual([]);
    expect(openingOfLastAnswer()).toBeNull();
    expect(lastAnswerMentions('swordfish')).toBe(false);
  });

  it('leaves the window as without a summary when the summary call fails, and tries again after the next answer', async () => {
    world = await startBotWorld({}, {}, {}, { memory: smallWindow });
    let failing = true;
    world.model.otherwise((request) => {
      if (!isSummaryCall(request)) return finalAnswer('Noted.');
      return failing ? apiError(400, 'this model cannot do that today') : summaryOf(request);
    });
    const { asked, thread } = await askInGeneral(world, 'remember this: the password is swordfish');
    await world.handled('message', asked.id);
    let index = 0;
    while (summaryCalls().length === 0) await say(thread.id, ++index);
    failing = false;
    const conversation = world.store.conversations.byKey(`discord:${thread.id}`)!;
    expect(world.store.summaries.of(conversation.id)).toBeUndefined();
    const failed = world.store.db.prepare("SELECT status, error_code FROM runs WHERE kind = 'summary'").all();
    expect(failed).toEqual([{ status: 'failed', error_code: expect.any(String) }]);

    await say(thread.id, 'after the failure');
    expect(openingOfLastAnswer()).toBeNull();
    expect(summaryCalls()).toHaveLength(2);
    await say(thread.id, 'after the retry');
    expect(openingOfLastAnswer()).toBe(`${earlier}Ada said the password is swordfish.`);
    expect(await waitForBotPosts(world, thread.id, index + 3)).toHaveLength(index + 3);
  });

  it("makes no summary call once the server's daily token budget is spent", async () => {
    world = await startBotWorld({ dailyTokenBudget: 1_000_000 }, {}, {}, { memory: smallWindow });
    let spent = false;
    world.model.otherwise((request) => {
      if (isSummaryCall(request)) return summaryOf(request);
      // The first answer whose window lost the first message: other threads spend the day's budget meanwhile.
      if (
        !request.messages.some((message) => message.role !== 'system' && message.content?.includes('remember this'))
      ) {
        world.store.db.prepare('UPDATE guild_usage_days SET tokens = 1000000').run();
        spent = true;
      }
      return finalAnswer('Noted.');
    });
    const { asked, thread } = await askInGeneral(world, 'remember this: the password is swordfish');
    await world.handled('message', asked.id);
    for (let index = 1; !spent && index < 40; index++) await say(thread.id, index);
    const conversation = world.store.conversations.byKey(`discord:${thread.id}`)!;

    expect(spent).toBe(true);
    expect(summaryCalls()).toEqual([]);
    expect(world.store.summaries.of(conversation.id)).toBeUndefined();
  });
});
