/**
 * STREAM_ANSWERS: the answer shown in the thread as the model writes it, through the real bot, the
 * real openai client reading a streamed reply from the fake model server, and the fake Discord.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentSettings, defaultAgentSettings, stopMessage } from '../../../src/agent/run-agent.ts';
import type { DiscordSettings } from '../../../src/settings/config-shape.ts';
import { renderAnswer } from '../../../src/posts/render.ts';
import { splitMessage } from '../../../src/posts/split-message.ts';
import { askInGeneral, type BotWorld, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { answer, call, type Intent } from '../../support/model-servers/brain.ts';
import { type FakeModelServer, type FakeServerOptions, startFakeModelServer } from '../../support/fake-model.ts';
import { compliant } from '../../support/model-servers/quirks.ts';

let world: BotWorld | undefined;
let server: FakeModelServer | undefined;
afterEach(async () => {
  await world?.close();
  await server?.close();
  world = undefined;
  server = undefined;
});

async function start(
  settings: Partial<DiscordSettings> = {},
  serverOptions: FakeServerOptions = {},
  agent: Partial<AgentSettings> = {},
) {
  server = await startFakeModelServer(compliant, serverOptions);
  world = await startBotWorld({ streamAnswers: true, toolPosts: 'off', ...settings }, agent, {
    baseURL: server.baseURL,
    provider: 'openai',
  });
}

/** Ada asks in #general; resolves with her message and the thread. */
const ask = (question: string) => askInGeneral(world!, question);

/** Resolves once the bot has posted something in a thread: the first words of an answer. */
const firstWordsShown = () =>
  world!.discord.waitFor(
    () => world!.discord.threads().some((thread) => world!.discord.botMessages(thread.id).length > 0),
    {
      what: 'the first words shown',
    },
  );

const requestsTo = (method: string, threadId: string) =>
  world!.discord.requests.filter(
    (request) => request.method === method && request.path.startsWith(`/channels/${threadId}/messages`),
  );
const contents = (threadId: string) => world!.discord.botMessages(threadId).map((message) => message.content);
const finalAnswer = (text: string, tools: string[] = []) => renderAnswer({ answer: text, tools_used: tools });

describe('an answer shown as the model writes it', () => {
  it('is posted at its first sentence, then edited into exactly the answer posted whole', async () => {
    // The model stops writing after its first sentence until the bot has shown it.
    await start({}, { streamPause: { afterChunks: 6, until: () => firstWordsShown() } });
    const text = 'It is four. Two and two make four, as anyone who counts on their fingers will find.';
    server!.enqueue(answer(text));
    const { thread, asked } = await ask('what is 2+2?');
    await world!.handled('message', asked.id);

    expect(contents(thread.id)).toEqual([finalAnswer(text)]);
    const [posted] = requestsTo('POST', thread.id);
    const shownFirst = (posted!.body as { content: string }).content;
    expect(text.startsWith(shownFirst)).toBe(true);
    expect(shownFirst.length).toBeLessThan(text.length);
    // Edited, never posted twice: one POST for the answer, and the edits after it.
    expect(requestsTo('POST', thread.id)).toHaveLength(1);
    expect(requestsTo('PATCH', thread.id).length).toBeGreaterThanOrEqual(1);
    expect(server!.requests[0]!.stream).toBe(true);
  });

  it('goes on in a new message past 2,000 characters, a code fence closed and reopened across the cut', async () => {
    await start();
    const code = Array.from({ length: 120 }, (_, line) => `const value${line} = ${line} * 2; // doubled`).join('\n');
    const text = `Here it is.\n\n\`\`\`ts\n${code}\n\`\`\`\nThat is all.`;
    server!.enqueue(call('calculator', { expression: '1+1' }), answer(text, ['calculator']));
    const { thread, asked } = await ask('write me code');
    await world!.handled('message', asked.id);

    const whole = finalAnswer(text, ['calculator']);
    expect(contents(thread.id)).toEqual(splitMessage(whole));
    expect(contents(thread.id).length).toBeGreaterThan(1);
    expect(contents(thread.id)[1]).toMatch(/^```ts\n/);
  });

  it('an answer refused and written again is edited into the one taken, nothing left half-written', async () => {
    await start();
    const refused: Intent = call('final_answer', { answer: 'A first try. It is invalid.', tools_used: 'not a list' });
    server!.enqueue(refused, answer('The second try.'));
    const { thread, asked } = await ask('hello');
    await world!.handled('message', asked.id);
    expect(contents(thread.id)).toEqual([finalAnswer('The second try.')]);
  });

  it('an edit rate-limited by Discord is retried: the text is never lost', async () => {
    await start({}, { streamPause: { afterChunks: 6, until: () => firstWordsShown() } });
    world!.discord.rateLimitNext({ method: 'PATCH', path: /^\/channels\/\d+\/messages\/\d+$/, retryAfterSeconds: 0.3 });
    const text = 'First. Then the rest of a sentence that keeps going for a while longer.';
    server!.enqueue(answer(text));
    const { thread, asked } = await ask('hello');
    await world!.handled('message', asked.id);
    expect(contents(thread.id)).toEqual([finalAnswer(text)]);
    expect(world!.discord.requests.some((request) => request.method === 'PATCH' && request.status === 429)).toBe(true);
  });

  it('/stop while the answer is being written leaves what was shown, marked stopped', async () => {
    let stopped!: () => void;
    const stopIssued = new Promise<void>((resolve) => (stopped = resolve));
    // The model stops writing mid-answer until /stop has been answered.
    await start({}, { streamPause: { afterChunks: 12, until: () => stopIssued } });
    const text = `Started. ${'And then it goes on and on, word after word. '.repeat(8)}`;
    server!.enqueue(answer(text));
    const { thread, asked } = await ask('tell me a long story');
    await world!.discord.waitFor(() => world!.discord.botMessages(thread.id)[0], { what: 'the first words shown' });
    const stop = await world!.discord.userRunsCommand({ name: 'stop', author: 'ada', channelId: thread.id });
    await stop.waitForReply();
    stopped();
    await world!.handled('message', asked.id);

    const [shown] = contents(thread.id);
    expect(contents(thread.id)).toHaveLength(1);
    expect(shown).toMatch(/\n-# \(stopped\)$/);
    expect(text.startsWith(shown!.replace(/\n-# \(stopped\)$/, ''))).toBe(true);
  });

  it('a model that writes on and on fills no more messages than a whole answer, cut with its note; the time limit says so', async () => {
    let ended!: () => void;
    const runEnded = new Promise<void>((resolve) => (ended = resolve));
    // 35,000 characters are on their way; the model writes 14,000 of them (2,000 chunks of 7), then
    // nothing more until the run's time limit has stopped it.
    const text = 'Again. '.repeat(5000);
    const runTimeoutMs = 4000;
    await start({}, { streamPause: { afterChunks: 2000, until: () => runEnded } }, { runTimeoutMs });
    server!.enqueue(answer(text));
    const { thread, asked } = await ask('repeat "Again." forever');
    await world!.handled('message', asked.id);
    ended();

    // At most as many messages as the whole answer would take, at any time: never more posted.
    const whole = splitMessage(finalAnswer(text));
    expect(whole).toHaveLength(5);
    expect(requestsTo('POST', thread.id).length).toBeLessThanOrEqual(whole.length);
    const shown = contents(thread.id).join('');
    expect(shown).toMatch(/\n\[…cut: \d+ more characters\]\n/);
    // Ended by the time limit's own message, not "(stopped)".
    const limit = stopMessage('time-limit', { ...defaultAgentSettings, runTimeoutMs });
    expect(shown.endsWith(`\n-# ${limit}`)).toBe(true);
    expect(shown).not.toContain('(stopped)');
    expect(world!.store.db.prepare('SELECT status FROM runs').pluck().all()).toEqual(['stopped']);
  });

  it('cut off by a shutdown while shown: the run taken up after the restart writes its answer into the same message', async () => {
    let restarted!: () => void;
    const back = new Promise<void>((resolve) => (restarted = resolve));
    await start({}, { streamPause: { afterChunks: 6, until: () => back } });
    const second = 'Taken up. The whole answer, this time.';
    server!.enqueue(answer('Begun. But this answer will be cut off before its end.'), answer(second));
    const { thread } = await ask('hello');
    await firstWordsShown();
    const [partial] = world!.discord.botMessages(thread.id);

    await world!.restart({ graceMs: 0 });
    restarted();
    await world!.discord.waitFor(() => contents(thread.id).join('') === finalAnswer(second), {
      what: 'the answer of the run taken up, alone in the thread',
    });
    await world!.bot.queues.idle();
    // Edited, not posted again: the one message is the one the cut-off run posted.
    expect(world!.discord.botMessages(thread.id).map((message) => message.id)).toEqual([partial!.id]);
    expect(requestsTo('POST', thread.id)).toHaveLength(1);
    const runs = world!.store.db
      .prepare(
        'SELECT status, resumed_from IS NOT NULL AS resumed, live_message_ids AS live FROM runs ORDER BY started_at',
      )
      .all();
    expect(runs).toEqual([
      { status: 'interrupted', resumed: 0, live: JSON.stringify([partial!.id]) },
      { status: 'answered', resumed: 1, live: JSON.stringify([partial!.id]) },
    ]);
  });

  it('a stream cut in the middle of the answer is asked for once more; the answer shown is the whole one', async () => {
    await start({}, { cutFirstStreamAfterChunks: 8 });
    const text = 'Cut. This answer was cut in the middle of being written, and written again.';
    server!.enqueue(answer(text), answer(text));
    const { asked, thread } = await ask('hello');
    await world!.handled('message', asked.id);
    expect(contents(thread.id)).toEqual([finalAnswer(text)]);
    expect(server!.requests).toHaveLength(2);
    expect(world!.store.db.prepare('SELECT status FROM runs').pluck().all()).toEqual(['answered']);
  });

  it('STREAM_ANSWERS=off: nothing is streamed, the answer is posted once, whole', async () => {
    await start({ streamAnswers: false });
    server!.enqueue(answer('Whole. And only whole.'));
    const { thread, asked } = await ask('hello');
    await waitForBotPosts(world!, thread.id, 1);
    await world!.handled('message', asked.id);
    expect(contents(thread.id)).toEqual([finalAnswer('Whole. And only whole.')]);
    expect(requestsTo('PATCH', thread.id)).toEqual([]);
    expect(server!.requests[0]!.stream).toBeUndefined();
  });
});
