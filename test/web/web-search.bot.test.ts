/**
 * Web search through the real bot process (`npm start`'s code, compiled) against fake SearXNG,
 * Brave and Tavily servers on 127.0.0.1: a question that needs the web makes one request to the
 * configured provider, and the answer lists only the sources that run's search showed (a made-up
 * URL is dropped, and in the step log as unverified); a provider's refusal reaches the model as an
 * observation; with no provider the tool is not offered; the key reaches neither the model server
 * nor Discord.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import type { BotProcess } from '../support/bot-process.ts';
import { useBotProcessWorld } from '../support/bot-process-world.ts';
import { type ChatRequest, finalAnswer, toolCalls } from '../support/fake-model.ts';
import { startFakeBrave } from '../support/fake-search/brave.ts';
import { startFakeSearxng } from '../support/fake-search/searxng.ts';
import type { FakePage, FakeSearch } from '../support/fake-search/server.ts';
import { startFakeTavily } from '../support/fake-search/tavily.ts';

const braveKey = 'BSA-e2e-9f8e7d6c5b4a39281706f5e4';
const tavilyKey = 'tvly-e2e-0a1b2c3d4e5f60718293a4b5';

const pages: FakePage[] = [
  {
    title: 'Rocket launch goes to plan',
    url: 'https://news.example.org/launch',
    snippet: 'The launch yesterday reached orbit at 14:02.',
    date: '2026-11-26',
  },
  { title: 'Launch day live blog', url: 'https://blog.example.net/live/', snippet: 'Minute by minute.' },
  { title: 'Unrelated', url: 'https://example.com/other', snippet: 'Not about it.' },
];
const madeUp = 'https://invented.example/launch-facts';

let provider: FakeSearch | undefined;
// Registered first, so it runs after the world's teardown has stopped the bot.
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});
const world = useBotProcessWorld('web-search-');
let bot: BotProcess | undefined;

async function start(env: Record<string, string>) {
  bot = await world.start({ TOOL_POSTS: 'off', ...env });
}

/** Asks the bot in a new thread; resolves with its answer there. */
async function ask(text: string) {
  await world.discord.userSays({
    channelId: world.discord.channels.general,
    author: 'ada',
    content: `<@${world.discord.botUser.id}> ${text}`,
    mentions: [world.discord.botUser.id],
  });
  const thread = await world.discord.waitFor(() => world.discord.threads()[0], { what: 'a thread' });
  // The answer is the message that is not a tool post.
  const answer = await world.discord.waitFor(
    () => world.discord.botMessages(thread.id).find((message) => !message.content.startsWith('🔧')),
    { what: 'the answer', timeoutMs: 15_000 },
  );
  return answer.content;
}

const toolNames = (request: ChatRequest) => (request.tools ?? []).map((tool) => tool.function.name);

/** The model searches once, then answers citing two results (one written loosely) and one URL no tool showed. */
function scriptSearchThenAnswer() {
  world.model.enqueue(
    (request) => {
      expect(toolNames(request)).toContain('web_search');
      return toolCalls({ name: 'web_search', arguments: { query: 'launch yesterday', count: 2, freshness: 'day' } });
    },
    (request) => {
      const observation = request.messages.at(-1)!;
      expect(observation.role).toBe('tool');
      expect(observation.content).toContain('URL: https://news.example.org/launch');
      return toolCalls({
        name: 'final_answer',
        arguments: {
          answer: 'It reached orbit at 14:02.',
          tools_used: ['web_search'],
          sources: ['https://news.example.org/launch/', madeUp, 'https://blog.example.net/live/#latest'],
        },
      });
    },
  );
}

/** The final answer's step, as the step log holds it. */
function finalAnswerStep() {
  const store = openStore(world.databasePath);
  try {
    return store.db.prepare(`SELECT result, note FROM steps WHERE kind = 'final-answer'`).get() as {
      result: string;
      note: string | null;
    };
  } finally {
    store.close();
  }
}

const expectedAnswer = [
  'It reached orbit at 14:02.',
  '-# 🔧 web_search',
  'Sources:',
  '1. <https://news.example.org/launch>',
  '2. <https://blog.example.net/live/>',
].join('\n');

describe('web search through the bot process', () => {
  it(
    'SearXNG: one request, and the answer lists only the sources the search showed; a made-up one is in the step log as unverified',
    { timeout: 60_000 },
    async () => {
      provider = await startFakeSearxng(pages);
      await start({ SEARXNG_URL: provider.url });
      scriptSearchThenAnswer();

      expect(await ask('what happened at the launch yesterday?')).toBe(expectedAnswer);
      expect(provider.requests).toHaveLength(1);
      expect(Object.fromEntries(provider.requests[0]!.query)).toMatchObject({
        q: 'launch yesterday',
        format: 'json',
        time_range: 'day',
      });
      const step = finalAnswerStep();
      expect(JSON.parse(step.result).sources).toEqual([
        'https://news.example.org/launch',
        'https://blog.example.net/live/',
      ]);
      expect(step.note).toBe(`unverified sources dropped: ${madeUp}`);
    },
  );

  it.each([
    ['Brave', 'BRAVE', () => startFakeBrave(braveKey, pages), { BRAVE_API_KEY: braveKey }, braveKey],
    ['Tavily', 'TAVILY', () => startFakeTavily(tavilyKey, pages), { TAVILY_API_KEY: tavilyKey }, tavilyKey],
  ])(
    '%s: one request with the key, the same checked sources, and the key never reaches the model server, Discord or the logs',
    { timeout: 60_000 },
    async (_name, prefix, startProvider, keys, key) => {
      provider = await startProvider();
      const urlSetting = prefix === 'BRAVE' ? 'BRAVE_SEARCH_URL' : 'TAVILY_URL';
      await start({ ...keys, [urlSetting]: provider.url, TOOL_POSTS: 'all', LOG_LEVEL: 'trace' });
      scriptSearchThenAnswer();

      expect(await ask('what happened at the launch yesterday?')).toBe(expectedAnswer);
      expect(provider.requests).toHaveLength(1);
      expect(JSON.stringify(world.model.requests)).not.toContain(key);
      expect(world.model.urls.join('\n')).not.toContain(key);
      for (const request of world.discord.requests)
        expect(JSON.stringify({ path: request.path, query: request.query, body: request.body ?? null })).not.toContain(
          key,
        );
      expect(bot!.stdout + bot!.stderr).not.toContain(key);
    },
  );

  it('a provider that refuses the key: the model reads why, and answers without', { timeout: 60_000 }, async () => {
    provider = await startFakeBrave(braveKey, pages);
    await start({ BRAVE_API_KEY: 'BSA-wrong-00000000000000', BRAVE_SEARCH_URL: provider.url });
    world.model.enqueue(
      toolCalls({ name: 'web_search', arguments: { query: 'launch', count: null, freshness: null } }),
      (request) => {
        expect(request.messages.at(-1)!.content).toMatch(
          /^Error: Web search is unavailable: Brave Search refused the bot's API key \(HTTP 422\); the operator must fix BRAVE_API_KEY\. Do not search again/,
        );
        return finalAnswer('I cannot search the web right now.');
      },
    );

    expect(await ask('what happened at the launch?')).toBe('I cannot search the web right now.');
    const line = await bot!.waitForLog('web search failed');
    expect(line).toMatchObject({
      level: 40,
      provider: 'brave',
      code: 'search-bad-key',
      reason:
        'web search: Brave Search answered HTTP 422 (search-bad-key): The provided subscription token is invalid. Check BRAVE_API_KEY.',
    });
  });

  it(
    'a provider that echoes its key in a result: masked before the model, the tool post and the step log',
    { timeout: 60_000 },
    async () => {
      const echoing: FakePage[] = [
        {
          title: `Debug page for ${braveKey}`,
          url: `https://echo.example.org/?key=${braveKey}`,
          snippet: `Your subscription token is ${braveKey}.`,
        },
        pages[0]!,
      ];
      provider = await startFakeBrave(braveKey, echoing);
      await start({ BRAVE_API_KEY: braveKey, BRAVE_SEARCH_URL: provider.url, TOOL_POSTS: 'all' });
      world.model.enqueue(
        toolCalls({ name: 'web_search', arguments: { query: 'launch', count: 2, freshness: null } }),
        (request) => {
          expect(JSON.stringify(request)).not.toContain(braveKey);
          expect(request.messages.at(-1)!.content).toContain('Your subscription token is [redacted].');
          return toolCalls({
            name: 'final_answer',
            arguments: {
              answer: 'Nothing to see.',
              tools_used: ['web_search'],
              sources: ['https://echo.example.org/?key=[redacted]'],
            },
          });
        },
      );

      expect(await ask('search something')).toBe('Nothing to see.\n-# 🔧 web_search');
      const posted = world.discord
        .botMessages()
        .map((message) => message.content)
        .join('\n');
      expect(posted).toContain('[redacted]');
      expect(posted).not.toContain(braveKey);
      const store = openStore(world.databasePath);
      try {
        expect(JSON.stringify(store.db.prepare('SELECT * FROM steps').all())).not.toContain(braveKey);
      } finally {
        store.close();
      }
    },
  );

  it('WEB_SEARCH=auto with no provider configured: the tool is not offered', { timeout: 60_000 }, async () => {
    await start({});
    world.model.enqueue((request) => {
      expect(toolNames(request)).toEqual(expect.arrayContaining(['fetch_url', 'final_answer']));
      expect(toolNames(request)).not.toContain('web_search');
      return finalAnswer('I cannot search the web.');
    });
    expect(await ask('what happened at the launch yesterday?')).toBe('I cannot search the web.');
    await bot!.waitForLog('web search: off (set SEARXNG_URL, BRAVE_API_KEY or TAVILY_API_KEY to offer web_search)');
  });
});
