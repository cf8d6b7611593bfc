/**
 * Images an MCP tool returns, from the test MCP server over stdio, through the agent loop to the
 * scripted model: after the results as a user message of image parts, for a model that sees.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import { McpConnection } from '../../src/mcp/mcp-connection.ts';
import { runOnce } from '../support/agent-harness.ts';
import { dataUrlOf, imageUrlsOf, png, textOf } from '../support/images.ts';
import { testServerConfig } from '../support/mcp-test-server.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';

let model: ScriptedModel;
let connection: McpConnection;
beforeEach(async () => {
  model = await startScriptedModel();
  connection = new McpConnection(testServerConfig('test'), silentLogger, {
    startTimeoutMs: 15_000,
    pingTimeoutMs: 1_000,
    firstBackoffMs: 100,
    maxBackoffMs: 400,
    stableAfterMs: 60_000,
  });
  await connection.start();
});
afterEach(async () => {
  await connection.close();
  await model.close();
});

describe("an MCP tool's images", () => {
  it('reach a model that sees as image parts after the results; an animation is refused', async () => {
    model.enqueue(toolCalls({ name: 'test__screenshot', arguments: {} }), (request) => {
      const result = request.messages.find((message) => message.role === 'tool')!;
      expect(result.content).toBe(
        'the screen, 40 by 30\n[image image/gif: not shown, animated: only still images are shown (post a screenshot of the frame)]\n[The tool returned an image: shown to you after the results.]',
      );
      const after = request.messages.at(-1)!;
      expect(after.role).toBe('user');
      expect(textOf(after)).toBe('[image 1 returned by test__screenshot]');
      expect(imageUrlsOf(after)).toEqual([dataUrlOf('image/png', png(40, 30))]);
      return finalAnswer('A 40 by 30 screen.', ['test__screenshot']);
    });
    const run = await runOnce(model, { tools: connection.tools(), settings: { seesImages: true } });
    expect(run.answer?.answer).toBe('A 40 by 30 screen.');
  });

  it('are not sent to a model that cannot see, which is told so', async () => {
    model.enqueue(toolCalls({ name: 'test__screenshot', arguments: {} }), (request) => {
      expect(request.messages.at(-1)!.role).toBe('tool');
      expect(request.messages.at(-1)!.content).toContain(
        '[The tool returned an image: not shown, this model cannot see images.]',
      );
      expect(request.messages.flatMap(imageUrlsOf)).toEqual([]);
      return finalAnswer('I cannot see it.', ['test__screenshot']);
    });
    const run = await runOnce(model, { tools: connection.tools(), settings: { seesImages: false } });
    expect(run.status).toBe('answered');
  });

  it('shows at most 4 images from one turn to the model, and names the rest', async () => {
    model.enqueue(toolCalls({ name: 'test__screenshots', arguments: { count: 6 } }), (request) => {
      const after = request.messages.at(-1)!;
      expect(imageUrlsOf(after)).toEqual([1, 2, 3, 4].map((n) => dataUrlOf('image/png', png(n, 1))));
      expect(textOf(after)).toContain(
        '[image 5 returned by test__screenshots: not shown, at most 4 images are shown from one turn]',
      );
      expect(textOf(after)).toContain('[image 6 returned by test__screenshots: not shown');
      return finalAnswer('Six screens.', ['test__screenshots']);
    });
    const run = await runOnce(model, { tools: connection.tools(), settings: { seesImages: true } });
    expect(run.answer?.answer).toBe('Six screens.');
  });
});
