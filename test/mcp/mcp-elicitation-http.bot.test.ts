/**
 * MCP elicitation over streamable HTTP, against server-everything: a request for input comes on the
 * stream of the call that made it, so with two calls in flight each is put to its own asker (over
 * stdio, which does not say, both are declined: mcp-elicitation.bot.test.ts).
 */
import { afterEach, expect, it } from 'vitest';
import type { InputRequest, ToolContext } from '../../src/agent/tool.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import { startEverythingOverHttp } from '../support/mcp-reference-servers.ts';
import { recordingLogger } from '../support/recording-logger.ts';

let connection: McpConnection | undefined;
let server: { close: () => Promise<void> } | undefined;
afterEach(async () => {
  await connection?.close();
  await server?.close();
  connection = server = undefined;
});

it('two calls in flight to one streamable HTTP server: each request for input goes to the asker of its call', async () => {
  const everything = (server = await startEverythingOverHttp());
  const { logger, lines } = recordingLogger();
  connection = new McpConnection(
    { name: 'everything', transport: 'http', sse: false, url: everything.url, headers: {}, moderatorOnly: false },
    logger,
  );
  await connection.start();
  const tool = connection.tools().find((each) => each.name === 'everything__trigger-elicitation-request')!;

  // Each asker answers only once both were asked: the two calls are in flight together.
  const asked: { who: string; request: InputRequest }[] = [];
  let bothAsked: () => void;
  const both = new Promise<void>((resolve) => (bothAsked = resolve));
  const asker = (id: string, name: string): ToolContext => ({
    conversationId: `thread-of-${name}`,
    guildId: null,
    channelId: null,
    requester: { id, displayName: name, isModerator: false },
    logger,
    signal: AbortSignal.timeout(20_000),
    askInput: async (request) => {
      asked.push({ who: name, request });
      if (asked.length === 2) bothAsked();
      await both;
      return { action: 'accept', content: { name } };
    },
  });
  const [ada, bob] = await Promise.all([tool.execute({}, asker('1', 'Ada')), tool.execute({}, asker('2', 'Bob'))]);

  expect(ada).toContain('- Name: Ada');
  expect(bob).toContain('- Name: Bob');
  // Each asked once, about their own call, and nobody told it could not be answered.
  expect(asked.map(({ who, request }) => [who, request.requester.displayName, request.unanswerable])).toEqual(
    expect.arrayContaining([
      ['Ada', 'Ada', undefined],
      ['Bob', 'Bob', undefined],
    ]),
  );
  expect(asked).toHaveLength(2);
  expect(asked[0]!.request.tool).toBe('everything__trigger-elicitation-request');
  expect(lines.filter((line) => line.msg?.startsWith('MCP input request declined'))).toEqual([]);
});
