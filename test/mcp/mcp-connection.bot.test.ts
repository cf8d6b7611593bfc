import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { waitUntil } from '../support/wait-until.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Logger, silentLogger } from '../../src/agent/logger.ts';
import type { RuntimeTool, ToolContext } from '../../src/agent/tool.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { McpConnection, type McpTimings } from '../../src/mcp/mcp-connection.ts';
import { testServerConfig, type TestServerMode } from '../support/mcp-test-server.ts';
import { type LogLine, recordingLogger } from '../support/recording-logger.ts';

// Roomy start timeouts (a start of the test server takes 1-2 s on a busy machine); short waits between restarts.
const fast: McpTimings = {
  startTimeoutMs: 15_000,
  pingTimeoutMs: 1_000,
  firstBackoffMs: 100,
  maxBackoffMs: 400,
  stableAfterMs: 60_000,
};
const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

function connect(
  options: { mode?: TestServerMode; env?: Record<string, string>; timings?: McpTimings; logger?: Logger } = {},
) {
  const startLog = join(mkdtempSync(join(tmpdir(), 'mcp-')), 'starts.log');
  const connection = new McpConnection(
    testServerConfig('test', { mode: options.mode, env: { MCP_TEST_START_LOG: startLog, ...options.env } }),
    options.logger ?? silentLogger,
    options.timings ?? fast,
  );
  open.push(connection);
  const starts = () => (existsSync(startLog) ? readFileSync(startLog, 'utf8').trim().split('\n').length : 0);
  return { connection, starts };
}

const context = (timeoutMs = 3_000): ToolContext => ({
  conversationId: 'test',
  guildId: null,
  channelId: null,
  requester: { id: '1', displayName: 'Ada', isModerator: false },
  logger: silentLogger,
  signal: AbortSignal.timeout(timeoutMs),
});

const named = (connection: McpConnection, name: string): RuntimeTool => {
  const found = connection.tools().find((tool) => tool.name === name);
  if (!found)
    throw new Error(
      `no tool ${name} among ${connection
        .tools()
        .map((tool) => tool.name)
        .join(', ')}`,
    );
  return found;
};

/** The lines the connection logged with this message. */
const logged = (lines: LogLine[], msg: string) => lines.filter((line) => line.msg === msg);

/**
 * Resolves once every restart the connection had scheduled so far is due: each waits at most
 * `maxBackoffMs`, and Node runs timers in the order they fall due, so a timer set now for longer
 * fires after all of them. Not a guess at how fast anything runs.
 */
const afterScheduledRestarts = (timings: McpTimings) =>
  new Promise((resolve) => setTimeout(resolve, timings.maxBackoffMs + 1));

describe('an MCP server over stdio', () => {
  it('lists its tools as <server>__<tool>, within 64 characters, with their schemas, sent non-strict', async () => {
    const { connection } = connect();
    await connection.start();

    expect(connection.status()).toEqual({ state: 'up' });
    const names = connection.tools().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['test__echo', 'test__add', 'test__environment', 'test__crash', 'test__hang']),
    );
    const long = names.find((name) => name.startsWith('test__a_tool_whose_name'))!;
    expect(long).toMatch(/^test__a_tool_whose_name_is_far_too_long[a-z_]*_[0-9a-f]{8}$/);
    expect(long).toHaveLength(64);
    const add = named(connection, 'test__add');
    expect(add.spec.function).toMatchObject({ name: 'test__add', description: 'Adds two numbers.', strict: false });
    expect(add.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(add.inputSchema).not.toHaveProperty('$schema');
  });

  it('calls a tool, and checks arguments against its JSON Schema first', async () => {
    const { connection } = connect();
    await connection.start();
    const add = named(connection, 'test__add');

    expect(await add.execute({ a: 2, b: 40 }, context())).toBe('42');
    expect(add.validate({ a: 2, b: 40 })).toEqual({ ok: true, value: { a: 2, b: 40 } });
    const invalid = add.validate({ a: 'two' });
    expect(invalid.ok).toBe(false);
    expect(invalid.ok ? [] : [...invalid.issues].sort()).toEqual([
      'a: must be number',
      "must have required property 'b'",
    ]);
    await expect(named(connection, 'test__fail').execute({}, context())).rejects.toThrow(
      'fail (test MCP server) reported an error: the disk is full',
    );
  });

  it('gives the server only the environment its config names, never the bot’s secrets', async () => {
    const secret = `sk-test-${Math.random().toString(36).slice(2)}`;
    process.env.OPENAI_API_KEY_FOR_THIS_TEST = secret;
    process.env.DISCORD_TOKEN_FOR_THIS_TEST = secret;
    try {
      const { connection } = connect({ env: { GREETING: 'hello' } });
      await connection.start();
      const environment = JSON.parse(
        String(await named(connection, 'test__environment').execute({}, context())),
      ) as Record<string, string>;

      expect(environment.GREETING).toBe('hello');
      expect(JSON.stringify(environment)).not.toContain(secret);
      // The SDK's short list of harmless variables, and the config's: nothing else.
      expect(
        Object.keys(environment).filter(
          (key) =>
            !['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'GREETING', 'MCP_TEST_START_LOG'].includes(key),
        ),
      ).toEqual([]);
    } finally {
      delete process.env.OPENAI_API_KEY_FOR_THIS_TEST;
      delete process.env.DISCORD_TOKEN_FOR_THIS_TEST;
    }
  });

  it('a crash mid-call fails that call clearly, the tools answer "unavailable" meanwhile, and the server is restarted', async () => {
    const { connection, starts } = connect({ timings: { ...fast, firstBackoffMs: 500 } });
    await connection.start();
    const echo = named(connection, 'test__echo');

    await expect(named(connection, 'test__crash').execute({}, context())).rejects.toThrow(
      'the test MCP server stopped during the call; it is being restarted',
    );
    expect(connection.status()).toMatchObject({ state: 'down' });
    await expect(echo.execute({ text: 'hi' }, context())).rejects.toThrow(
      /^the test MCP server is unavailable right now \(it exited or closed the connection; restarting\)/,
    );

    await waitUntil(() => connection.status().state === 'up', 'the restart');
    expect(starts()).toBe(2);
    expect(await named(connection, 'test__echo').execute({ text: 'again' }, context())).toBe('echo: again');
  });

  it('a call that never answers ends at the tool’s time limit; a server that still answers pings is kept', async () => {
    const { logger, lines } = recordingLogger();
    const { connection, starts } = connect({ logger });
    await connection.start();

    await expect(named(connection, 'test__hang').execute({}, context(300))).rejects.toThrow(/TimeoutError/);
    // The timed-out call makes the connection ping the server: wait for its verdict.
    const verdicts = () => [
      ...logged(lines, 'MCP server answered the ping: kept'),
      ...logged(lines, 'MCP server stopped answering: restarting it'),
    ];
    await waitUntil(() => verdicts().length > 0, 'the ping after the timed-out call');
    expect(verdicts().map((line) => line.msg)).toEqual(['MCP server answered the ping: kept']);
    expect(connection.status()).toEqual({ state: 'up' });
    expect(starts()).toBe(1);
    expect(await named(connection, 'test__echo').execute({ text: 'still here' }, context())).toBe('echo: still here');
  });

  it('a server that stops answering altogether (not even a ping) after a call timed out is restarted', async () => {
    const { connection, starts } = connect();
    await connection.start();

    await expect(named(connection, 'test__freeze').execute({}, context(300))).rejects.toThrow(/TimeoutError/);
    await waitUntil(() => starts() === 2 && connection.status().state === 'up', 'the restart');
    expect(await named(connection, 'test__echo').execute({ text: 'back' }, context())).toBe('echo: back');
  });

  it('a server that never answers at start is given up on at the start timeout and retried with backoff', async () => {
    const { connection, starts } = connect({
      mode: 'hang-on-start',
      timings: { ...fast, startTimeoutMs: 2_000, firstBackoffMs: 100 },
    });
    await connection.start();

    expect(connection.status()).toEqual({ state: 'down', reason: 'it did not start within 2 s; restarting' });
    expect(connection.tools()).toEqual([]);
    await waitUntil(() => starts() >= 3, 'two restarts');
  }, 40_000);

  it('closing while a server is still starting ends that start, and nothing is started again', async () => {
    const { logger, lines } = recordingLogger();
    // No start timeout to end the attempt: only closing can, within the test's time.
    const { connection, starts } = connect({
      mode: 'hang-on-start',
      logger,
      timings: { ...fast, startTimeoutMs: 600_000 },
    });
    const first = connection.start();
    await waitUntil(() => starts() === 1, 'the start');
    await connection.close();
    await first;

    expect(connection.status()).toEqual({ state: 'down', reason: 'the bot is shutting down' });
    // The attempt has ended; a restart is scheduled only with a "down" line, and there is none.
    expect(logged(lines, 'MCP server down')).toEqual([]);
    expect(logged(lines, 'MCP server starting')).toHaveLength(1);
  });

  it('lists the tools again when the server says they changed', async () => {
    const { connection } = connect();
    await connection.start();
    expect(connection.tools().map((tool) => tool.name)).not.toContain('test__extra');

    expect(await named(connection, 'test__grow').execute({}, context())).toBe('grown');
    await waitUntil(() => connection.tools().some((tool) => tool.name === 'test__extra'), 'the new listing');
    expect(await named(connection, 'test__extra').execute({}, context())).toBe('extra');
  });

  it('a server flooding stderr is logged a bounded number of lines, each cut short', async () => {
    const { logger, lines: all } = recordingLogger();
    const { connection } = connect({ mode: 'noisy', logger });
    await connection.start();
    const lines = logged(all, 'MCP server stderr').map((line) => line.fields);

    expect(connection.status()).toEqual({ state: 'up' });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(20);
    expect(lines.every((fields) => String(fields.stderr).length <= 500)).toBe(true);
  });

  it("sends its log messages (notifications/message) to the bot's log, each of the eight levels mapped", async () => {
    const { logger, lines } = recordingLogger();
    const { connection } = connect({ mode: 'log-every-level', logger });
    await connection.start();
    await waitUntil(() => logged(lines, 'MCP server log').length >= 8, 'eight log messages');
    expect(logged(lines, 'MCP server log').map((line) => [line.fields.mcpLevel, line.level])).toEqual([
      ['debug', 'debug'],
      ['info', 'info'],
      ['notice', 'info'],
      ['warning', 'warn'],
      ['error', 'error'],
      ['critical', 'error'],
      ['alert', 'error'],
      ['emergency', 'error'],
    ]);
    expect(logged(lines, 'MCP server log')[3]!.fields).toEqual({
      mcpServer: 'test',
      mcpLevel: 'warning',
      mcpLogger: 'levels',
      data: '{"said":"a warning message"}',
    });
  });

  it('a server that exits at start is retried, waiting longer each time', async () => {
    const { logger, lines } = recordingLogger();
    const timings = { ...fast, firstBackoffMs: 200, maxBackoffMs: 400 };
    const { connection } = connect({ mode: 'exit-on-start', logger, timings });
    await connection.start();
    expect(connection.status()).toMatchObject({ state: 'down' });

    // Each failure schedules the next start and says after how long: twice as long each time, up to the cap.
    await waitUntil(() => logged(lines, 'MCP server down').length >= 3, 'three failed starts');
    const closing = performance.now();
    await connection.close();
    const downs = logged(lines, 'MCP server down').slice(0, 3);
    const waits = downs.map((line) => line.fields.retryInMs);
    expect(waits).toEqual([200, 400, 400]);
    // And each next start came no sooner than the wait scheduled before it (a bound no slow machine breaks;
    // 1 ms for Node's millisecond timer clock against performance.now()).
    const startedAt = logged(lines, 'MCP server starting').map((line) => line.at);
    for (const [index, down] of downs.slice(0, 2).entries()) {
      expect(startedAt[index + 1]! - down.at).toBeGreaterThanOrEqual((down.fields.retryInMs as number) - 1);
    }

    // Closed with a restart pending or an attempt in flight: nothing starts again, nor is scheduled.
    await afterScheduledRestarts(timings);
    expect(
      lines.filter(
        (line) => line.at > closing && (line.msg === 'MCP server starting' || line.msg === 'MCP server down'),
      ),
    ).toEqual([]);
    expect(connection.status()).toEqual({ state: 'down', reason: 'the bot is shutting down' });
  });
});

describe('a server that cannot start says why, in one line', () => {
  const direct = (config: Partial<McpServerConfig> & Pick<McpServerConfig, 'transport'>, timings = fast) => {
    const { logger, lines } = recordingLogger();
    const connection = new McpConnection(
      { name: 'broken', moderatorOnly: false, ...config } as McpServerConfig,
      logger,
      timings,
    );
    open.push(connection);
    return { connection, lines };
  };
  const reasonOf = (connection: McpConnection) => {
    const status = connection.status();
    return status.state === 'down' ? status.reason : `(${status.state})`;
  };

  it('a missing script: node\u2019s "Cannot find module", not the tail of its stack', async () => {
    const script = join(mkdtempSync(join(tmpdir(), 'mcp-')), 'gone.js');
    const { connection } = direct({ transport: 'stdio', command: process.execPath, args: [script], env: {} });
    await connection.start();
    expect(reasonOf(connection)).toMatch(/Error: Cannot find module '.*gone\.js'/);
    expect(reasonOf(connection)).not.toMatch(/ at /);
  });

  it('a refused connection: what refused it, not "fetch failed" alone', async () => {
    const { connection } = direct({
      transport: 'http',
      sse: false,
      url: `http://127.0.0.1:${await closedPort()}/mcp`,
      headers: {},
    });
    await connection.start();
    expect(reasonOf(connection)).toMatch(/ECONNREFUSED/);
  });

  it('a server writing text on stdout: that it is not JSON-RPC, at the start timeout', async () => {
    const chatty = 'setInterval(() => console.log("hello from a server that is no MCP server"), 50)';
    const { connection } = direct(
      { transport: 'stdio', command: process.execPath, args: ['-e', chatty], env: {} },
      { ...fast, startTimeoutMs: 1_500 },
    );
    await connection.start();
    expect(reasonOf(connection)).toMatch(
      /^it did not start within 1\.5 s: what it wrote on stdout is not MCP's JSON-RPC \(/,
    );
  });

  it('while it is retried, its status keeps the last reason (not "starting")', async () => {
    const { logger, lines } = recordingLogger();
    const { connection } = connect({ mode: 'exit-on-start', logger, timings: { ...fast, firstBackoffMs: 100 } });
    await connection.start();
    await waitUntil(() => logged(lines, 'MCP server starting').length >= 2, 'a retry under way');
    expect(connection.status()).toMatchObject({ state: 'down' });
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
