/**
 * The model server's faults, through the whole bot: each ends with the right retry or a clear
 * message in the thread (one post, no more), and the run on record with its cause. The agent-level
 * tests (test/agent/model-errors.test.ts) cover the error mapping in detail; this is the matrix a
 * user and an operator see.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRow } from '../../db/runs.ts';
import type { OpenAIModelClientOptions } from '../../src/model-servers/openai-model-client.ts';
import { type BotWorld, mentionOf, startBotWorld } from '../support/bot-harness.ts';
import { apiError, finalAnswer, type ScriptStep } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

const unavailable = 'The model service is not answering right now. Please try again in a few minutes.';
const fast = { 'retry-after-ms': '10' };

interface Fault {
  name: string;
  script: ScriptStep[];
  client?: Partial<OpenAIModelClientOptions>;
  /** What the thread shows, in order. */
  posts: string[];
  /** How many HTTP requests the model server saw. */
  attempts: number;
  /** The runs, oldest first: their status, error code, and what their error says. */
  runs: { status: RunRow['status']; error_code: string | null; error?: RegExp }[];
}

const faults: Fault[] = [
  {
    name: '429 with a short Retry-After: waited out and retried',
    script: [
      apiError(429, 'Rate limit reached', { headers: { 'retry-after-ms': '50' } }),
      finalAnswer('After the wait.'),
    ],
    posts: ['After the wait.'],
    attempts: 2,
    runs: [{ status: 'answered', error_code: null }],
  },
  {
    name: '429 with a very long Retry-After: not slept through, the wait said',
    script: [apiError(429, 'Rate limit reached', { headers: { 'retry-after': '3600' } })],
    client: { maxRetryWaitSeconds: 30 },
    posts: ['The model is rate-limited right now. Please try again in 60 minutes.'],
    attempts: 1,
    runs: [{ status: 'failed', error_code: 'model-rate-limited', error: /429/ }],
  },
  {
    name: '500 once: retried',
    script: [apiError(500, 'The server had an error', { headers: fast }), finalAnswer('After the retry.')],
    posts: ['After the retry.'],
    attempts: 2,
    runs: [{ status: 'answered', error_code: null }],
  },
  {
    name: '500 every time: retried, then reported',
    script: [
      apiError(500, 'The server had an error', { headers: fast }),
      apiError(500, 'The server had an error', { headers: fast }),
      apiError(500, 'The server had an error', { headers: fast }),
    ],
    posts: [unavailable],
    attempts: 3,
    runs: [{ status: 'failed', error_code: 'model-unavailable', error: /500/ }],
  },
  {
    name: '503 every time: retried, then reported',
    script: [
      apiError(503, 'overloaded', { headers: fast }),
      apiError(503, 'overloaded', { headers: fast }),
      apiError(503, 'overloaded', { headers: fast }),
    ],
    posts: [unavailable],
    attempts: 3,
    runs: [{ status: 'failed', error_code: 'model-unavailable', error: /503/ }],
  },
  {
    name: 'a response that never comes: given up after the request time limit',
    script: [{ hang: true }],
    client: { maxRetries: 0, timeoutSeconds: 1 },
    posts: [unavailable],
    attempts: 1,
    runs: [{ status: 'failed', error_code: 'model-unavailable', error: /did not answer in time/ }],
  },
  {
    name: 'headers, then a body that never ends: given up after the request time limit',
    script: [{ ...finalAnswer('Never whole.'), hangAfterBytes: 30 }],
    client: { maxRetries: 0, timeoutSeconds: 1 },
    posts: [unavailable],
    attempts: 1,
    runs: [{ status: 'failed', error_code: 'model-unavailable', error: /did not answer in time/ }],
  },
  {
    name: 'a connection reset before the response: retried, then reported',
    script: [{ reset: true }, { reset: true }],
    client: { maxRetries: 1 },
    posts: [unavailable],
    attempts: 2,
    runs: [{ status: 'failed', error_code: 'model-unavailable', error: /cannot reach/ }],
  },
  {
    name: 'a connection reset in the middle of the response: retried',
    script: [{ ...finalAnswer('Cut off.'), resetAfterBytes: 30 }, finalAnswer('Whole this time.')],
    client: { maxRetries: 1 },
    posts: ['Whole this time.'],
    attempts: 2,
    runs: [{ status: 'answered', error_code: null }],
  },
  {
    name: 'a connection reset in the middle of every response: reported as the service unavailable',
    script: [
      { ...finalAnswer('Cut off.'), resetAfterBytes: 30 },
      { ...finalAnswer('Cut off again.'), resetAfterBytes: 30 },
    ],
    client: { maxRetries: 1 },
    posts: [unavailable],
    attempts: 2,
    runs: [{ status: 'failed', error_code: 'model-unavailable', error: /cannot reach/ }],
  },
  {
    name: 'a body that is not JSON: reported, not retried',
    script: [{ status: 200, body: '<html>Bad gateway</html>' }],
    posts: ['The model service sent a reply the bot could not read. Please try again.'],
    attempts: 1,
    runs: [{ status: 'failed', error_code: 'model-invalid-response' }],
  },
  {
    name: '400 context_length_exceeded twice: tried again with half the window, then reported once',
    script: [
      apiError(400, "This model's maximum context length is 128000 tokens.", { code: 'context_length_exceeded' }),
      apiError(400, "This model's maximum context length is 128000 tokens.", { code: 'context_length_exceeded' }),
    ],
    posts: ['This conversation is too long for the model. Start a new thread, or ask a moderator to reset this one.'],
    attempts: 2,
    runs: [
      { status: 'failed', error_code: 'model-context-too-long', error: /400/ },
      { status: 'failed', error_code: 'model-context-too-long', error: /400/ },
    ],
  },
  {
    name: '401: not retried, the operator told what to check',
    script: [apiError(401, 'Incorrect API key provided: sk-test.', { code: 'invalid_api_key' })],
    posts: ["The model service refused the bot's credentials. The operator needs to check OPENAI_API_KEY."],
    attempts: 1,
    runs: [{ status: 'failed', error_code: 'model-bad-credentials', error: /401/ }],
  },
  {
    name: '401 whose body is cut short: still not retried, still the credentials',
    script: [
      { ...apiError(401, 'Incorrect API key provided: sk-test.', { code: 'invalid_api_key' }), resetAfterBytes: 10 },
    ],
    posts: ["The model service refused the bot's credentials. The operator needs to check OPENAI_API_KEY."],
    attempts: 1,
    runs: [{ status: 'failed', error_code: 'model-bad-credentials', error: /401/ }],
  },
  {
    name: 'a response past 16 MB: not read whole, not retried, reported as unreadable',
    script: [{ status: 200, body: `{"pad":"${'x'.repeat(17 * 1024 * 1024)}"}` }],
    posts: ['The model service sent a reply the bot could not read. Please try again.'],
    attempts: 1,
    runs: [{ status: 'failed', error_code: 'model-invalid-response', error: /passed 16777216 bytes/ }],
  },
];

describe('model server faults, through the whole bot', () => {
  it.each(faults)(
    '$name',
    async (fault) => {
      world = await startBotWorld({}, {}, { maxRetries: 2, ...fault.client });
      const { discord, model } = world;
      model.enqueue(...fault.script);

      await discord.userSays({
        channelId: discord.channels.general,
        author: 'ada',
        content: `${mentionOf(world)} hello`,
        mentions: [discord.botUser.id],
      });
      const thread = await discord.waitFor(() => discord.threads()[0], { what: 'a thread' });
      await discord.waitFor(
        () =>
          discord.botMessages(thread.id).length >= fault.posts.length &&
          world.store.runs.recent(null, 5).every((run) => run.delivered_at !== null),
        {
          what: 'the answer or the notice',
          timeoutMs: 15_000,
        },
      );
      await world.bot.queues.idle();

      expect(discord.botMessages(thread.id).map((post) => post.content)).toEqual(fault.posts);
      expect(model.attempts).toBe(fault.attempts);
      const runs = world.store.runs.recent(null, 5).reverse();
      expect(runs).toHaveLength(fault.runs.length);
      fault.runs.forEach((expected, index) => {
        const run = runs[index]!;
        expect({ status: run.status, error_code: run.error_code }).toEqual({
          status: expected.status,
          error_code: expected.error_code,
        });
        if (expected.error) expect(run.error).toMatch(expected.error);
        else if (expected.status === 'answered') expect(run.error).toBeNull();
        expect(run.ended_at).not.toBeNull();
      });
      // A retry of a context too long takes the failed run up; it is not a second conversation turn.
      if (runs.length > 1) expect(runs[1]!.resumed_from).toBe(runs[0]!.id);
    },
    20_000,
  );
});
