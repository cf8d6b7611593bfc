/**
 * A small MCP server over stdio, for tests: run it with `node --import tsx test/support/mcp-server.ts [mode]`.
 * Modes: (none) serve; `hang-on-start` never answers `initialize`; `exit-on-start` exits at once;
 * `noisy` serves after flooding stderr (many lines, and a long one that never ends); `tell-env` serves after
 * writing the variables it was given to stderr, as a server that logs its settings at start does;
 * `log-every-level` serves after sending a log message (`notifications/message`) of each level.
 * `MCP_TEST_START_LOG` names a file that gets a line at each start, so tests can count restarts.
 *
 * Tools: echo, add (numbers only: a schema to break), environment (what the process was given),
 * crash (exits mid-call), hang (never answers), freeze (stops answering anything), screenshot (an image
 * and an animation), screens_for (images annotated with their audience), screenshots (as many images
 * as asked), slow (tells its progress), delete (the one destructive tool), sign_up and log_in (which ask the user for input: a form, a link), and one with a
 * name too long to keep as it is. Resources: an image (test://screen.png) and bytes (test://archive.bin).
 */
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { gif, png } from './images.ts';

const mode = process.argv[2] ?? 'serve';
if (process.env.MCP_TEST_START_LOG) appendFileSync(process.env.MCP_TEST_START_LOG, `${process.pid} ${mode}\n`);
if (mode === 'exit-on-start') process.exit(3);
if (mode === 'noisy') process.stderr.write(`${'progress\n'.repeat(200)}${'x'.repeat(100_000)}`);
if (mode === 'tell-env')
  for (const [name, value] of Object.entries(process.env)) process.stderr.write(`starting with ${name}=${value}\n`);
if (mode === 'hang-on-start') {
  // Reads stdin and never answers.
  process.stdin.resume();
} else {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' }, { capabilities: { logging: {} } });
  if (mode === 'log-every-level')
    server.server.oninitialized = () => {
      for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const)
        void server.sendLoggingMessage({ level, logger: 'levels', data: { said: `a ${level} message` } });
    };
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  // Said of every tool but `delete`, so that they run without the asker's confirmation (a tool
  // without annotations counts as destructive).
  const readOnly = { readOnlyHint: true };

  server.registerTool(
    'echo',
    {
      annotations: readOnly,
      description: 'Says the text back.',
      inputSchema: { text: z.string().describe('What to say back.') },
    },
    ({ text: said }) => text(`echo: ${said}`),
  );
  server.registerTool(
    'add',
    { annotations: readOnly, description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => text(String(a + b)),
  );
  server.registerTool(
    'environment',
    {
      annotations: readOnly,
      description: 'The environment variables this server was given, as JSON.',
      inputSchema: {},
    },
    () => text(JSON.stringify(process.env)),
  );
  server.registerTool(
    'fail',
    { annotations: readOnly, description: 'Always reports an error.', inputSchema: {} },
    () => ({
      ...text('the disk is full'),
      isError: true,
    }),
  );
  server.registerTool(
    'crash',
    { annotations: readOnly, description: 'Exits in the middle of the call.', inputSchema: {} },
    () => {
      process.stderr.write('crashing on purpose\n');
      process.exit(1);
    },
  );
  server.registerTool(
    'hang',
    { annotations: readOnly, description: 'Never answers.', inputSchema: {} },
    () => new Promise<never>(() => undefined),
  );
  server.registerTool(
    'freeze',
    { annotations: readOnly, description: 'Stops the whole server answering anything (a busy loop).', inputSchema: {} },
    () => {
      for (;;) {
        // Never returns: not even pings are answered.
      }
    },
  );
  server.registerTool(
    'grow',
    {
      annotations: readOnly,
      description: 'Adds a tool named "extra" (the server then says its tools changed).',
      inputSchema: {},
    },
    () => {
      server.registerTool('extra', { annotations: readOnly, description: 'Added later.', inputSchema: {} }, () =>
        text('extra'),
      );
      return text('grown');
    },
  );
  server.registerTool(
    'screenshot',
    {
      annotations: readOnly,
      description: 'A picture of the screen (and an animation, which the bot refuses).',
      inputSchema: {},
    },
    () => ({
      content: [
        { type: 'text' as const, text: 'the screen, 40 by 30' },
        { type: 'image' as const, data: png(40, 30).toString('base64'), mimeType: 'image/png' },
        { type: 'image' as const, data: gif(4, 4, 2).toString('base64'), mimeType: 'image/gif' },
      ],
    }),
  );
  server.registerTool(
    'screens_for',
    {
      annotations: readOnly,
      description: 'Three pictures: one for the user (10 wide), one for the assistant (20), one for both (30).',
      inputSchema: {},
    },
    () => ({
      content: [
        { type: 'text' as const, text: 'three screens' },
        ...[
          { width: 10, audience: ['user' as const] },
          { width: 20, audience: ['assistant' as const] },
          { width: 30, audience: undefined },
        ].map(({ width, audience }) => ({
          type: 'image' as const,
          data: png(width, 1).toString('base64'),
          mimeType: 'image/png',
          ...(audience ? { annotations: { audience } } : {}),
        })),
      ],
    }),
  );
  server.registerTool(
    'screenshots',
    {
      annotations: readOnly,
      description: 'Several pictures, `count` of them (PNGs 1 to count pixels wide).',
      inputSchema: { count: z.number() },
    },
    ({ count }) => ({
      content: [
        { type: 'text' as const, text: `${count} screens` },
        ...Array.from({ length: count }, (_, index) => ({
          type: 'image' as const,
          data: png(index + 1, 1).toString('base64'),
          mimeType: 'image/png',
        })),
      ],
    }),
  );
  server.registerTool(
    'slow',
    {
      annotations: readOnly,
      description:
        'Takes `steps` steps of `stepMs` ms, telling its progress after each when the call has a progressToken.',
      inputSchema: { steps: z.number(), stepMs: z.number() },
    },
    async ({ steps, stepMs }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step += 1) {
        await new Promise((resolve) => setTimeout(resolve, stepMs));
        if (progressToken !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: step, total: steps, message: `step ${step} of ${steps}` },
          });
      }
      return text(`${steps} steps done (progressToken ${progressToken === undefined ? 'absent' : 'sent'})`);
    },
  );
  server.registerTool(
    'delete',
    {
      annotations: { readOnlyHint: false, destructiveHint: true },
      description: 'Deletes a thing.',
      inputSchema: { what: z.string() },
    },
    ({ what }) => text(`deleted ${what}`),
  );
  server.registerTool(
    'sign_up',
    {
      annotations: readOnly,
      description: 'Asks for details (a form).',
      inputSchema: {},
    },
    async (_args, extra) => {
      const answer = await server.server.elicitInput(
        {
          message: 'Who are you?',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', title: 'Your name', minLength: 2 },
              age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150 },
              newsletter: { type: 'boolean', title: 'Newsletter', description: 'Send me news' },
              color: { type: 'string', title: 'Colour', enum: ['red', 'green', 'blue'] },
            },
            required: ['name', 'age'],
          },
        },
        { relatedRequestId: extra.requestId },
      );
      return text(`${answer.action} ${JSON.stringify(answer.content ?? null)}`);
    },
  );
  server.registerTool(
    'log_in',
    { annotations: readOnly, description: 'Asks to open a link.', inputSchema: {} },
    async (_args, extra) => {
      const answer = await server.server.elicitInput(
        {
          mode: 'url',
          message: 'Log in to the service',
          elicitationId: 'login-1',
          url: 'https://example.com/login?state=1',
        },
        { relatedRequestId: extra.requestId },
      );
      return text(answer.action);
    },
  );
  server.registerTool(
    'a_tool_whose_name_is_far_too_long_to_fit_once_the_server_name_is_put_before_it',
    { annotations: readOnly, description: 'Has a long name.', inputSchema: {} },
    () => text('long'),
  );

  // Resources (so that the server declares them): a still image, and bytes that are no image.
  server.registerResource(
    'screen',
    'test://screen.png',
    { mimeType: 'image/png', description: 'The screen, 40 by 30.' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: png(40, 30).toString('base64') }] }),
  );
  server.registerResource('archive', 'test://archive.bin', { mimeType: 'application/octet-stream' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/octet-stream', blob: Buffer.alloc(3000, 7).toString('base64') }],
  }));

  await server.connect(new StdioServerTransport());
  process.stderr.write('test MCP server ready\n');
}
