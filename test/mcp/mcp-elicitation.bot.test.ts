/**
 * MCP elicitation at the connection: a request for input reaches the `askInput` port of the call
 * that made it; where there is no port (the terminal, `/tool`) or the call cannot be told apart
 * (two in flight), it is declined and logged, and nobody is asked. (In Discord: test/discord/runs/mcp-elicitation.bot.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { InputRequest, ToolContext } from '../../src/agent/tool.ts';
import { formOf } from '../../src/mcp/elicitation.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import { testServerConfig } from '../support/mcp-test-server.ts';
import { recordingLogger } from '../support/recording-logger.ts';

let connection: McpConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

const context = (extra: Partial<ToolContext> = {}): ToolContext => ({
  conversationId: 'test',
  guildId: null,
  channelId: null,
  requester: { id: '1', displayName: 'Ada', isModerator: false },
  logger: recordingLogger().logger,
  signal: AbortSignal.timeout(10_000),
  ...extra,
});

async function started() {
  const { logger, lines } = recordingLogger();
  connection = new McpConnection(testServerConfig('test'), logger);
  await connection.start();
  const tool = (name: string) => connection!.tools().find((each) => each.name === name)!;
  return { tool, lines };
}

describe('MCP elicitation', () => {
  it('goes to the call’s askInput, with the form read from the requested schema', async () => {
    const { tool } = await started();
    const asked: InputRequest[] = [];
    const result = await tool('test__sign_up').execute(
      {},
      context({
        askInput: async (request) => (asked.push(request), { action: 'accept', content: { name: 'Ada', age: 36 } }),
      }),
    );
    expect(result).toBe('accept {"name":"Ada","age":36}');
    expect(asked[0]).toMatchObject({ tool: 'test__sign_up', message: 'Who are you?', requester: { id: '1' } });
    expect(asked[0]!.form).toEqual({
      kind: 'form',
      fields: [
        { name: 'name', label: 'Your name', type: 'string', required: true, minLength: 2, maxLength: undefined },
        { name: 'age', label: 'Age', type: 'integer', required: true, minimum: 0, maximum: 150 },
        { name: 'newsletter', label: 'Newsletter', description: 'Send me news', type: 'boolean', required: false },
        { name: 'color', label: 'Colour', type: 'enum', options: ['red', 'green', 'blue'], required: false },
      ],
    });
  });

  it('is declined, and logged, where nobody can be asked (the terminal, /tool)', async () => {
    const { tool, lines } = await started();
    expect(await tool('test__sign_up').execute({}, context())).toBe('decline null');
    expect(lines.find((line) => line.msg?.startsWith('MCP input request declined'))?.msg).toBe(
      'MCP input request declined: nobody can be asked here (the terminal, or /tool)',
    );
  });

  it('is declined when two calls are in flight, since MCP does not say which one asked', async () => {
    const { tool } = await started();
    const requests: InputRequest[] = [];
    const ask = context({ askInput: async (request) => (requests.push(request), { action: 'accept', content: {} }) });
    const results = await Promise.all([tool('test__sign_up').execute({}, ask), tool('test__sign_up').execute({}, ask)]);
    expect(results).toEqual(['decline null', 'decline null']);
    // Nobody is asked a question; the thread is told why (once per request, for the one conversation).
    expect(requests.map((request) => request.unanswerable)).toEqual([
      '2 calls to the test server were running at once, and it does not say which one asked',
      '2 calls to the test server were running at once, and it does not say which one asked',
    ]);
  });

  it('reads choices given as oneOf (with their titles), notes a format, and takes a multi-select as a list', () => {
    expect(
      formOf({
        type: 'object',
        properties: {
          size: {
            type: 'string',
            oneOf: [
              { const: 's', title: 'Small' },
              { const: 'l', title: 'Large' },
            ],
          },
          mail: { type: 'string', format: 'email', description: 'Where to write' },
          tags: { type: 'array', maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } },
        },
      }),
    ).toEqual({
      kind: 'form',
      fields: [
        {
          name: 'size',
          label: 'size',
          type: 'enum',
          options: ['s', 'l'],
          optionTitles: ['Small', 'Large'],
          required: false,
        },
        { name: 'mail', label: 'mail', description: 'Where to write (email)', type: 'string', required: false },
        { name: 'tags', label: 'tags', type: 'list', options: ['a', 'b', 'c'], maxItems: 2, required: false },
      ],
    });
  });
});
