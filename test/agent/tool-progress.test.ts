import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolProgress } from '../../src/agent/tool.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { runOnce } from '../support/agent-harness.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel, toolCalls } from '../support/fake-model.ts';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

describe('a tool tells how far it has got', () => {
  it('as tool-progress events between its call and its result, and not after it ended', async () => {
    let report: ((progress: ToolProgress) => void) | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'Takes its time.',
      parameters: z.object({}),
      execute(_args, context) {
        report = context.reportProgress;
        report?.({ progress: 1, total: 4, message: ' warming up ' });
        report?.({ progress: 3, total: 0 });
        report?.({ progress: Number.NaN });
        return 'done';
      },
    });
    model.enqueue(toolCalls({ name: 'slow', arguments: {} }), finalAnswer('Done.', ['slow']));

    const run = await runOnce(model, { tools: buildToolRegistry([slow]) });
    report?.({ progress: 4, total: 4 });

    const events = run.events.filter((event) => event.type.startsWith('tool-'));
    expect(events.map((event) => event.type)).toEqual(['tool-call', 'tool-progress', 'tool-progress', 'tool-result']);
    const callId = events[0]!.type === 'tool-call' ? events[0]!.callId : '';
    expect(events[1]).toMatchObject({ callId, name: 'slow', step: 1, progress: 1, total: 4, message: 'warming up' });
    // A total that is not a positive number is not one.
    expect(events[2]).toMatchObject({ progress: 3, total: null, message: null });
  });
});
