/**
 * A tool call carries a progressToken, and the server's `notifications/progress` for it reach the
 * tool's context (`reportProgress`): with the test server, and with server-everything's
 * trigger-long-running-operation (the reference server tells its progress only when given a token).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import type { ToolContext, ToolProgress } from '../../src/agent/tool.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { everythingServerConfig } from '../support/mcp-reference-servers.ts';
import { testServerConfig, testTimings } from '../support/mcp-test-server.ts';

const timings = testTimings;
const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

async function connect(config: McpServerConfig): Promise<McpConnection> {
  const connection = new McpConnection(config, silentLogger, timings);
  open.push(connection);
  await connection.start();
  expect(connection.status()).toEqual({ state: 'up' });
  return connection;
}

function contextHearing(heard: ToolProgress[]): ToolContext {
  return {
    conversationId: 'test',
    guildId: null,
    channelId: null,
    requester: { id: '1', displayName: 'Ada', isModerator: false },
    logger: silentLogger,
    signal: AbortSignal.timeout(10_000),
    reportProgress: (progress) => void heard.push(progress),
  };
}

describe('progress of an MCP tool call', () => {
  it('the call carries a progressToken, and each notifications/progress reaches reportProgress', async () => {
    const connection = await connect(testServerConfig('test'));
    const heard: ToolProgress[] = [];
    const result = await connection.call('slow', { steps: 3, stepMs: 10 }, contextHearing(heard));

    expect(result.content?.[0]?.text).toBe('3 steps done (progressToken sent)');
    // The last may be dropped: the SDK hands a notification on a microtask, the result at once (mcp-request.ts).
    const told = [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step} of 3` }));
    expect(heard.length).toBeGreaterThanOrEqual(2);
    expect(heard).toEqual(told.slice(0, heard.length));
  });

  it("server-everything's trigger-long-running-operation tells its progress", async () => {
    const connection = await connect(everythingServerConfig());
    const heard: ToolProgress[] = [];
    const result = await connection.call(
      'trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      contextHearing(heard),
    );

    expect(result.content?.[0]?.text).toContain('Long running operation completed');
    expect(heard.length).toBeGreaterThanOrEqual(1);
    expect(heard).toEqual(
      [
        { progress: 1, total: 2 },
        { progress: 2, total: 2 },
      ].slice(0, heard.length),
    );
  });
});
