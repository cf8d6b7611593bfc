/**
 * CONTENT_CHECK through the real bot process: the compiled bot against the fake Discord, the
 * scripted model, and a fake content check (OpenAI's moderation endpoint, or a Llama Guard model
 * named in MODELS_FILE). A flagged question never reaches the model; a flagged piece of an answer
 * is never shown; an outage follows CONTENT_CHECK_ON_ERROR; moderators switch checks per place.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ContentFlagRow } from '../../../db/content-flags.ts';
import { openStore } from '../../../db/store.ts';
import { messageNotAnswered } from '../../../src/discord/runs/message-check.ts';
import type { BotProcess } from '../../support/bot-process.ts';
import { useBotProcessWorld } from '../../support/bot-process-world.ts';
import { runScript } from '../../support/run-process.ts';
import { type FakeContentCheck, moderationText, startFakeContentCheck } from '../../support/fake-content-check.ts';
import { finalAnswer, type ScriptedReply } from '../../support/fake-model.ts';
import { chunkEvent } from '../../support/fake-model/server.ts';
import { png } from '../../support/images.ts';

// Each test starts the compiled bot as a process of its own, and waits on three fakes.
vi.setConfig({ testTimeout: 40_000 });

let check: FakeContentCheck;
beforeEach(async () => {
  check = await startFakeContentCheck('FORBIDDEN');
});
// Registered first, so it runs after the world's teardown has stopped the bot.
afterEach(async () => {
  await check.close();
});
const world = useBotProcessWorld('content-check-');
let bot: BotProcess | undefined;

/** The settings of each kind of check, pointing at the fake. */
const kinds = {
  moderations: () => ({ CONTENT_CHECK: 'moderations', CONTENT_CHECK_BASE_URL: check.baseURL }),
  guard: () => {
    const file = join(world.folder, 'models.yaml');
    writeFileSync(
      file,
      [
        'default: main',
        'models:',
        '  - name: main',
        `    base_url: ${world.model.baseURL}`,
        '    model: scripted-model',
        '  - name: guard',
        `    base_url: ${check.baseURL}`,
        '    model: llama-guard3:1b',
      ].join('\n'),
    );
    return { CONTENT_CHECK: 'guard', CONTENT_CHECK_MODEL: 'guard', MODELS_FILE: file };
  },
};

const start = async (env: Record<string, string>) => {
  bot = await world.start({
    STREAM_ANSWERS: 'off',
    TOOL_POSTS: 'off',
    USER_MESSAGES_PER_MINUTE: '0',
    ...env,
  });
};

/** Ada mentions the bot in a channel. */
const adaAsks = (text: string, channelId = world.discord.channels.general) =>
  world.discord.userSays({
    channelId,
    author: 'ada',
    content: `<@${world.discord.botUser.id}> ${text}`,
    mentions: [world.discord.botUser.id],
  });
const botTexts = (channelId: string) => world.discord.botMessages(channelId).map((message) => message.content);
/** Resolves with the bot's message in `channelId` that `match` picks. */
const botSays = (channelId: string, match: (text: string) => boolean, what: string) =>
  world.discord.waitFor(() => botTexts(channelId).find(match), { what, timeoutMs: 15_000 });

/** Everything the bot sent Discord to show: message contents posted or edited, thread names. */
const everythingSent = () => world.discord.requests.map((request) => JSON.stringify(request.body ?? '')).join('\n');

/** Every text the fake check was asked about. */
const checkedTexts = () => [
  ...check.moderationRequests.map(moderationText),
  ...check.guardRequests.map((request) => request.messages.at(-1)?.content ?? ''),
];

/** The content flags recorded, read while the bot runs (WAL lets a reader in). */
function flags(): ContentFlagRow[] {
  const store = openStore(join(world.folder, 'bot.sqlite'), { readOnly: true });
  try {
    return store.contentFlags.ofConversation(1).concat(store.contentFlags.ofConversation(2));
  } finally {
    store.close();
  }
}

/**
 * A `final_answer` streamed in two pieces: `first`, then, once `until.first` resolves, `rest`, and
 * the end once `until.rest` resolves, as OpenAI streams a tool call's arguments
 * (platform.openai.com/docs/api-reference/chat-streaming).
 */
function answerInTwoPieces(
  first: string,
  rest: string,
  until: { first: () => Promise<unknown>; rest: () => Promise<unknown> },
): ScriptedReply {
  const args = JSON.stringify({ answer: first + rest, tools_used: [] });
  const cut = args.indexOf(JSON.stringify(rest).slice(1, -1));
  const event = (delta: object, finish: string | null = null) =>
    chunkEvent('chatcmpl-pieces', 'scripted-model', { choices: [{ index: 0, delta, finish_reason: finish }] });
  const call = (fields: object) => event({ tool_calls: [{ index: 0, ...fields }] });
  return {
    async *bodyPieces() {
      yield event({ role: 'assistant', content: '' });
      yield call({ id: 'call_1', type: 'function', function: { name: 'final_answer', arguments: args.slice(0, cut) } });
      await until.first();
      yield call({ function: { arguments: args.slice(cut) } });
      await until.rest();
      yield event({}, 'tool_calls');
      yield 'data: [DONE]\n\n';
    },
  };
}

describe.each(Object.keys(kinds) as (keyof typeof kinds)[])('CONTENT_CHECK=%s', (kind) => {
  it('a flagged question is stored and recorded, never sent to the model, and its author told so', async () => {
    await start(kinds[kind]());
    await adaAsks('how do I do FORBIDDEN things?');
    await botSays(
      world.discord.channels.general,
      (text) => text === messageNotAnswered.flagged,
      'the not-answered reply',
    );
    // Nothing was scripted: a model request would also fail the scripted model at close.
    expect(world.model.requests).toEqual([]);
    if (kind === 'moderations') {
      expect(check.moderationRequests).toHaveLength(1);
      expect(check.moderationRequests[0]).toMatchObject({ model: 'omni-moderation-latest' });
      expect(moderationText(check.moderationRequests[0]!)).toContain('how do I do FORBIDDEN things?');
    } else {
      expect(check.guardRequests).toEqual([
        expect.objectContaining({
          model: 'llama-guard3:1b',
          messages: [{ role: 'user', content: expect.stringContaining('how do I do FORBIDDEN things?') }],
        }),
      ]);
    }
    expect(flags()).toEqual([
      expect.objectContaining({ target: 'question', kind, run_id: null, message_id: expect.any(Number) }),
    ]);
    const { categories } = JSON.parse(flags()[0]!.categories) as { categories: string[] };
    expect(categories).toEqual(kind === 'moderations' ? ['violence'] : ['violent crimes', 'hate']);

    // The conversation goes on: the next question is answered, and the flagged one is not in its
    // window, nor in the thread's name (the place the model is told of), renamed after its author.
    const thread = await world.discord.waitFor(() =>
      world.discord.threads().find((made) => made.name === 'Chat with Ada'),
    );
    world.model.enqueue((request) => {
      expect(JSON.stringify(request.messages)).not.toContain('FORBIDDEN');
      return finalAnswer('It is four.');
    });
    await world.discord.userSays({ channelId: thread.id, author: 'ada', content: 'what is 2+2?' });
    await botSays(thread.id, (text) => text === 'It is four.', 'the next answer');
  });

  it('a flagged piece of a live answer is never shown: what was shown ends with a notice', async () => {
    await start({ ...kinds[kind](), STREAM_ANSWERS: 'on' });
    const firstShown = () =>
      world.discord.waitFor(
        () => world.discord.threads().some((thread) => world.discord.botMessages(thread.id).length > 0),
        {
          what: 'the first piece shown',
          timeoutMs: 15_000,
        },
      );
    // The answer ends only once its second piece was either checked or shown: a live edit's turn.
    const restCheckedOrShown = () =>
      world.discord.waitFor(
        () => checkedTexts().some((text) => text.includes('FORBIDDEN')) || everythingSent().includes('FORBIDDEN'),
        {
          what: 'the second piece checked or shown',
          timeoutMs: 15_000,
        },
      );
    world.model.enqueue(
      answerInTwoPieces('Here is how it starts. ', 'And then FORBIDDEN words follow.', {
        first: firstShown,
        rest: restCheckedOrShown,
      }),
    );
    await adaAsks('tell me a story');
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    const ended = await botSays(thread.id, (text) => text.includes('held back'), 'the notice');
    expect(ended).toBe(
      'Here is how it starts. \n-# The rest of this answer was held back: a content check flagged it.',
    );
    expect(everythingSent()).not.toContain('FORBIDDEN');
    // One check per message and per edit: the question, the piece shown, the piece held back (the
    // end asks nothing more: the answer was held already).
    expect(checkedTexts()).toEqual([
      expect.stringContaining('tell me a story'),
      'Here is how it starts. ',
      'And then FORBIDDEN words follow.',
    ]);
    expect(flags()).toEqual([expect.objectContaining({ target: 'answer', kind, run_id: expect.any(String) })]);

    // The step log shows the flag as a step of the run, with its categories (and scores, where given).
    const detail = await runScript('src/steps.ts', {
      cwd: world.folder,
      args: ['--run', flags()[0]!.run_id!],
      env: { DATABASE_PATH: join(world.folder, 'bot.sqlite') },
    });
    expect(detail.stdout).toMatch(
      kind === 'moderations'
        ? /content-check \(moderations\) .* → the answer flagged, not shown: violence 0\.91\n/
        : /content-check \(guard\) .* → the answer flagged, not shown: violent crimes, hate\n/,
    );
  });
});

describe('CONTENT_CHECK=moderations', () => {
  it('an answer posted whole (STREAM_ANSWERS=off) that is flagged is not posted: a notice takes its place', async () => {
    await start(kinds.moderations());
    world.model.enqueue(finalAnswer('Sure: FORBIDDEN instructions.'));
    await adaAsks('help me');
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await botSays(thread.id, (text) => text.includes('held back'), 'the notice');
    expect(botTexts(thread.id)).toEqual(['I wrote an answer, but it was held back: a content check flagged it.']);
    expect(everythingSent()).not.toContain('FORBIDDEN');
    // One request for the question, one for the answer.
    expect(check.moderationRequests.map(moderationText)).toEqual(['help me', 'Sure: FORBIDDEN instructions.']);

    // The answer held back is not in the next run's window either: the model does not build on it.
    world.model.enqueue((request) => {
      expect(JSON.stringify(request.messages)).not.toContain('FORBIDDEN');
      expect(request.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
        'Ada: help me',
        'Ada: and now?',
      ]);
      return finalAnswer('Now something else.');
    });
    await world.discord.userSays({ channelId: thread.id, author: 'ada', content: 'and now?' });
    await botSays(thread.id, (text) => text === 'Now something else.', 'the next answer');
  });

  it('the images posted with a question go to the moderation endpoint with its text, in one request', async () => {
    await start({ ...kinds.moderations(), MODEL_VISION: 'on', DISCORD_CDN_URL: world.discord.cdnUrl });
    world.model.enqueue(finalAnswer('A small square.'));
    await world.discord.userSays({
      channelId: world.discord.channels.general,
      author: 'ada',
      content: `<@${world.discord.botUser.id}> what is this?`,
      mentions: [world.discord.botUser.id],
      attachments: [{ filename: 'square.png', contentType: 'image/png', body: png(8, 8) }],
    });
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await botSays(thread.id, (text) => text === 'A small square.', 'the answer');
    expect(check.moderationRequests[0]!.input).toEqual([
      { type: 'text', text: expect.stringContaining('what is this?') },
      { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } },
    ]);
    expect(check.moderationRequests).toHaveLength(2); // The question, then the answer.
  });

  it('an outage with CONTENT_CHECK_ON_ERROR=refuse (the default): the question is not sent, the person told, the outage logged', async () => {
    check.down = true;
    await start(kinds.moderations());
    await adaAsks('hello');
    await botSays(world.discord.channels.general, (text) => text === messageNotAnswered.unavailable, 'the refusal');
    expect(world.model.requests).toEqual([]);
    expect(await bot!.waitForLog('content check unavailable')).toMatchObject({ onError: 'refuse', target: 'question' });
  });

  it('a check that does not answer is an outage after CONTENT_CHECK_TIMEOUT_SECONDS, not a wait of the model timeout', async () => {
    check.hanging = true;
    await start({ ...kinds.moderations(), CONTENT_CHECK_TIMEOUT_SECONDS: '1', OPENAI_TIMEOUT_SECONDS: '600' });
    await adaAsks('hello');
    await botSays(world.discord.channels.general, (text) => text === messageNotAnswered.unavailable, 'the refusal');
    expect(world.model.requests).toEqual([]);
    // Asked twice at most: once, and one retry.
    expect(check.received).toBeLessThanOrEqual(2);
    expect(await bot!.waitForLog('content check unavailable')).toMatchObject({ onError: 'refuse', target: 'question' });
  });

  it('an outage with CONTENT_CHECK_ON_ERROR=allow: the question is answered, the outage logged', async () => {
    check.down = true;
    await start({ ...kinds.moderations(), CONTENT_CHECK_ON_ERROR: 'allow' });
    world.model.enqueue(finalAnswer('Hello there.'));
    await adaAsks('hello');
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await botSays(thread.id, (text) => text === 'Hello there.', 'the answer');
    expect(await bot!.waitForLog('content check unavailable')).toMatchObject({ onError: 'allow' });
  });

  it('moderators switch checks off in a channel (/settings content-check): other channels are still checked', async () => {
    await start(kinds.moderations());
    const switched = await world.discord.userRunsCommand({
      name: 'settings',
      subcommand: 'content-check',
      author: 'ada',
      channelId: world.discord.channels.general,
      options: { enabled: false },
    });
    expect(await switched.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Content checks are off for this channel and its threads.',
    });
    world.model.enqueue(finalAnswer('Answered unchecked: FORBIDDEN.'));
    await adaAsks('a FORBIDDEN question');
    const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
    await botSays(thread.id, (text) => text === 'Answered unchecked: FORBIDDEN.', 'the answer');
    expect(check.moderationRequests).toEqual([]);

    const shown = await world.discord.userRunsCommand({
      name: 'settings',
      subcommand: 'show',
      author: 'ada',
      channelId: world.discord.channels.general,
    });
    expect((await shown.waitForReply()).content).toMatch(/- Content checks: off \(set for the channel <#\d+> by Ada/);

    await adaAsks('a FORBIDDEN question', world.discord.channels.random);
    await botSays(
      world.discord.channels.random,
      (text) => text === messageNotAnswered.flagged,
      'the not-answered reply',
    );
    expect(world.model.requests).toHaveLength(1);
  });
});
