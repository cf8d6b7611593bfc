/**
 * Resources: a tool's resource links and embedded resources keep their name, description and MIME
 * type in the text the model gets, and `<server>__read_resource` (offered when the server declares
 * resources) opens them within fetch_url's limits. With server-everything's resources (pinned), and
 * the test server's image and bytes.
 */
import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import type { ToolContext } from '../../src/agent/tool.ts';
import { isResultWithImages } from '../../src/agent/tool-images.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { runOnce } from '../support/agent-harness.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';
import { dataUrlOf, imageUrlsOf, png } from '../support/images.ts';
import { everythingServerConfig, filesystemServerConfig } from '../support/mcp-reference-servers.ts';
import { testServerConfig, testTimings } from '../support/mcp-test-server.ts';

const timings = testTimings;
const open: McpConnection[] = [];
let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
  await model.close();
});

async function connect(config: McpServerConfig): Promise<McpConnection> {
  const connection = new McpConnection(config, silentLogger, timings);
  open.push(connection);
  await connection.start();
  expect(connection.status()).toEqual({ state: 'up' });
  return connection;
}

const context = (): ToolContext => ({
  conversationId: 'test',
  guildId: null,
  channelId: null,
  requester: { id: '1', displayName: 'Ada', isModerator: false },
  logger: silentLogger,
  signal: AbortSignal.timeout(10_000),
});

function tool(connection: McpConnection, name: string) {
  const found = connection.tools().find((candidate) => candidate.name === name);
  if (!found)
    throw new Error(
      `no tool ${name}: ${connection
        .tools()
        .map((each) => each.name)
        .join(', ')}`,
    );
  return found;
}

describe('resources of server-everything', () => {
  it("a tool's resource links keep their name, description and MIME type, and name the tool that reads them", async () => {
    // (server-everything describes its base64 blob as "text/plain" and a "plaintext resource": its words, kept.)
    const connection = await connect(everythingServerConfig());
    const result = await tool(connection, 'everything__get-resource-links').execute({ count: 2 }, context());

    expect(result).toContain(
      '[resource link demo://resource/dynamic/blob/1 "Blob Resource 1" (text/plain): Resource 1: plaintext resource; read it with everything__read_resource]',
    );
    expect(result).toContain(
      '[resource link demo://resource/dynamic/text/2 "Text Resource 2" (text/plain): Resource 2: plaintext resource; read it with everything__read_resource]',
    );
  });

  it('read_resource opens a text resource, a blob of text, and a whole document', async () => {
    const connection = await connect(everythingServerConfig());
    const read = tool(connection, 'everything__read_resource');
    expect(read.needsConfirmation).toBe(false);

    const text = await read.execute({ uri: 'demo://resource/dynamic/text/2' }, context());
    expect(text).toMatch(
      /^\[resource demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\)\]\nResource 2: This is a plaintext resource/,
    );
    const blob = await read.execute({ uri: 'demo://resource/dynamic/blob/1' }, context());
    expect(blob).toMatch(/\nResource 1: This is a base64 blob created at/);
    const long = (await read.execute({ uri: 'demo://resource/static/document/structure.md' }, context())) as string;
    expect(long).toContain('(text/markdown)]');
    // 12,324 bytes, fewer characters: read whole, below fetch_url's 12,000 characters.
    expect(long).toContain('This document.');
  });

  it('an embedded binary resource is named with its type and size, never sent as text', async () => {
    const connection = await connect(everythingServerConfig());
    const data = `data:text/plain;base64,${Buffer.from('hello '.repeat(200)).toString('base64')}`;
    const result = (await tool(connection, 'everything__gzip-file-as-resource').execute(
      { name: 'hello.txt.gz', data, outputType: 'resource' },
      context(),
    )) as string;
    expect(result).toMatch(/\(application\/gzip\)\]\n\[binary data, \d+ K?B: not shown as text\]/);
    expect(result).not.toMatch(/H4sI/); // gzip's base64 always starts so
  });

  it('server-filesystem, which declares no resources, gets no read_resource', async () => {
    const connection = await connect(filesystemServerConfig([tmpdir()]));
    expect(connection.tools().some((each) => each.name.endsWith('__read_resource'))).toBe(false);
  });
});

describe('resources of the test server', () => {
  it('an image resource is shown to a model that sees; other bytes are named', async () => {
    const connection = await connect(testServerConfig('test'));
    const archive = await tool(connection, 'test__read_resource').execute({ uri: 'test://archive.bin' }, context());
    expect(archive).toBe(
      '[resource test://archive.bin (application/octet-stream)]\n[binary data, 3 KB: not shown as text]',
    );

    model.enqueue(toolCalls({ name: 'test__read_resource', arguments: { uri: 'test://screen.png' } }), (request) => {
      expect(request.messages.at(-2)).toMatchObject({
        role: 'tool',
        content: expect.stringContaining('[resource test://screen.png (image/png)]\n[image, 40×30'),
      });
      expect(imageUrlsOf(request.messages.at(-1)!)).toEqual([dataUrlOf('image/png', png(40, 30))]);
      return finalAnswer('I see it.', ['test__read_resource']);
    });
    const run = await runOnce(model, { tools: connection.tools(), settings: { seesImages: true } });
    expect(run.status).toBe('answered');
    expect(
      isResultWithImages(
        await tool(connection, 'test__read_resource').execute({ uri: 'test://screen.png' }, context()),
      ),
    ).toBe(true);
  });
});
