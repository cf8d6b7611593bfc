/**
 * The reference MCP servers from npm (`@modelcontextprotocol/server-everything` and
 * `server-filesystem`, pinned in devDependencies) over stdio, through the connection and the agent
 * loop to the scripted model: what each of them does that a home-made test server would not.
 */
import { testTimings } from '../support/mcp-test-server.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/agent/tool.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { McpConnection, type McpTimings } from '../../src/mcp/mcp-connection.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { runOnce } from '../support/agent-harness.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';
import { dataUrlOf, imageUrlsOf, png } from '../support/images.ts';
import { everythingServerConfig, filesystemServerConfig } from '../support/mcp-reference-servers.ts';
import { type LogLine, recordingLogger } from '../support/recording-logger.ts';
import { waitUntil } from '../support/wait-until.ts';

const timings: McpTimings = { ...testTimings, firstBackoffMs: 100, maxBackoffMs: 400 };
let model: ScriptedModel;
const open: McpConnection[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
  await model.close();
});

const context = (): ToolContext => ({
  conversationId: 'test',
  guildId: null,
  channelId: null,
  requester: { id: '1', displayName: 'Ada', isModerator: false },
  logger: silentLogger,
  signal: AbortSignal.timeout(5_000),
});

function connect(config: McpServerConfig): { connection: McpConnection; lines: LogLine[] } {
  const { logger, lines } = recordingLogger();
  const connection = new McpConnection(config, logger, timings);
  open.push(connection);
  return { connection, lines };
}

describe('server-filesystem', () => {
  it("read_media_file's image reaches the model once: the base64 repeated in structuredContent is named, not sent", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'mcp-files-'));
    // As large as a small screenshot: 12 KB, 16,000 characters of base64.
    const image = png(40, 30, { padTo: 12_000 });
    writeFileSync(join(directory, 'screen.png'), image);
    const { connection } = connect(filesystemServerConfig([directory]));
    await connection.start();
    expect(connection.status()).toEqual({ state: 'up' });

    model.enqueue(
      toolCalls({ name: 'files__read_media_file', arguments: { path: join(directory, 'screen.png') } }),
      (request) => {
        const result = request.messages.find((message) => message.role === 'tool')!;
        expect(result.content).not.toContain(image.toString('base64').slice(0, 40));
        expect(result.content).toContain('"data":"[binary data, 12 KB: taken out]"');
        expect(result.content).toContain('[The tool returned an image: shown to you after the results.]');
        expect(imageUrlsOf(request.messages.at(-1)!)).toEqual([dataUrlOf('image/png', image)]);
        return finalAnswer('A 40 by 30 screen.', ['files__read_media_file']);
      },
    );
    const run = await runOnce(model, { tools: connection.tools(), settings: { seesImages: true } });
    expect(run.answer?.answer).toBe('A 40 by 30 screen.');
  });

  it('that exits at start, for a directory that does not exist, is down for the reason it wrote on stderr', async () => {
    const missing = join(tmpdir(), 'mcp-files-that-do-not-exist');
    const { connection, lines } = connect(filesystemServerConfig([missing]));
    await connection.start();

    // The reason as /help and the ready log line show it (the connection's status), and as it is logged.
    const said = `its stderr ended with: Warning: Cannot access directory ${missing}, skipping | Error: None of the specified directories are accessible`;
    expect(connection.status()).toEqual({
      state: 'down',
      reason: `it could not be started (${said}): MCP error -32000: Connection closed; restarting`,
    });
    expect(lines.find((line) => line.msg === 'MCP server down')?.fields.reason).toContain(said);
  });
});

describe('server-everything', () => {
  it('leaves out a tool that runs only as a task (simulate-research-query), logged with why', async () => {
    const { connection, lines } = connect(everythingServerConfig());
    await connection.start();
    expect(connection.status()).toEqual({ state: 'up' });

    const names = connection.tools().map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-tiny-image']));
    expect(names).not.toContain('everything__simulate-research-query');
    expect(lines.filter((line) => line.msg === 'MCP tool left out')).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: {
          mcpServer: 'everything',
          tool: 'simulate-research-query',
          reason: 'it runs only as a task (execution.taskSupport "required"), and the bot does not run tasks yet',
        },
      }),
    ]);
  });

  it("get-annotated-message's image, for the user only (audience), is kept for the people and from the model", async () => {
    const { connection } = connect(everythingServerConfig());
    await connection.start();
    const annotated = connection.tools().find((tool) => tool.name === 'everything__get-annotated-message')!;
    const result = await annotated.execute({ messageType: 'success', includeImage: true }, context());
    expect(result).toMatchObject({
      type: 'result-with-images',
      text: 'Operation completed successfully',
      images: [{ mediaType: 'image/png', audience: 'people' }],
    });
  });

  it("log messages (notifications/message) go to the bot's log at the level they map to", async () => {
    const { connection, lines } = connect(everythingServerConfig());
    await connection.start();
    const toggle = connection.tools().find((tool) => tool.name === 'everything__toggle-simulated-logging')!;
    // The server sends a message of a random level at once, then one every 5 s.
    await toggle.execute({}, context());
    await waitUntil(() => lines.some((line) => line.msg === 'MCP server log'), 'a log message from the server');

    const bot = { Debug: 'debug', Info: 'info', Notice: 'info', Warning: 'warn', Error: 'error' } as Record<
      string,
      string
    >;
    for (const line of lines.filter((each) => each.msg === 'MCP server log')) {
      const said = /^(\w+)/.exec(line.fields.data as string)![1]!;
      expect(line).toMatchObject({
        level: bot[said] ?? 'error',
        fields: { mcpServer: 'everything', mcpLevel: said.toLowerCase() },
      });
    }
  });
});
