/**
 * The bot against a fake llama-server that makes the tools' schemas into a grammar as b8291 did
 * (test/support/model-servers/llamacpp-grammar.ts): a `pattern` group crashes it, a bound over
 * 2000 is an HTTP 500. With remind_me and fetch_url offered (zod's date-time pattern, maxLength
 * 2048) every request used to fail; the schemas sent are now grammar-safe, and what they no
 * longer say is still checked when a call arrives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { askInGeneral, type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { type FakeModelServer, startFakeModelServer } from '../support/fake-model.ts';
import { answer, call, type SeenRequest } from '../support/model-servers/brain.ts';
import { compliant } from '../support/model-servers/quirks.ts';

let world: BotWorld | undefined;
let server: FakeModelServer | undefined;
afterEach(async () => {
  await world?.close();
  await server?.close();
  world = undefined;
  server = undefined;
});

async function start() {
  server = await startFakeModelServer(compliant, { grammar: 'llama.cpp' });
  world = await startBotWorld(
    { toolPosts: 'off' },
    {},
    { baseURL: server.baseURL, provider: 'llamacpp' },
    {
      databaseTools: true,
    },
  );
  return { server, world };
}

/** The last tool result the model was sent (its content as JSON: text, or parts). */
const lastToolResult = (request: SeenRequest) =>
  JSON.stringify(request.messages.findLast((message) => message.role === 'tool')?.content ?? null);

describe('tools against llama.cpp grammars', () => {
  it('a run with remind_me and fetch_url offered reaches its final answer', async () => {
    const { server, world } = await start();
    server.enqueue(answer('Hello from llama.cpp.'));
    const { thread } = await askInGeneral(world, 'hello');
    const [post] = await waitForBotPosts(world, thread.id, 1);
    expect(post!.content).toContain('Hello from llama.cpp.');
    const offered = server.requests[0]!.tools!.map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(['remind_me', 'fetch_url', 'final_answer']));
  });

  it('a wrong date-time for remind_me, and a URL past 2048 characters, still come back to the model', async () => {
    const { server, world } = await start();
    const longUrl = `https://example.com/${'a'.repeat(2100)}`;
    let resultOfAt = '';
    let resultOfUrl = '';
    server.enqueue(
      call('remind_me', { text: 'stretch', in_minutes: null, at: 'tomorrow at noon' }),
      (request) => {
        resultOfAt = lastToolResult(request);
        return call('fetch_url', { url: longUrl });
      },
      (request) => {
        resultOfUrl = lastToolResult(request);
        return answer('I could not set it.');
      },
    );
    const { thread } = await askInGeneral(world, 'remind me tomorrow at noon');
    const [post] = await waitForBotPosts(world, thread.id, 1);
    expect(post!.content).toContain('I could not set it.');
    expect(resultOfAt).toMatch(/at: Invalid ISO datetime/);
    expect(resultOfUrl).toMatch(/url: Too big: expected string to have <=2048 characters/);
    expect(world.store.schedules.pendingRemindersOf(world.discord.users.ada)).toBe(0);
  });
});
