import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { builtInTools } from '../../tools/index.ts';
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

const forcedFinalAnswer = { type: 'function', function: { name: 'final_answer' } };
const calculate = (expression: string) => toolCalls({ name: 'calculator', arguments: { expression } });

/** A tool that reports when it starts and then never finishes, ignoring its signal. */
function stuckTool(onStart: () => void) {
  return defineTool({
    name: 'stuck',
    description: 'Never finishes.',
    parameters: z.object({}),
    execute() {
      onStart();
      return new Promise(() => {});
    },
  });
}

describe('step limit', () => {
  it('forces final_answer at the last step, and stops with a clear result if even that fails', async () => {
    model.enqueue(calculate('1+1'), calculate('2+2'), (request) => {
      expect(request.tool_choice).toEqual(forcedFinalAnswer);
      return calculate('3+3');
    });

    const run = await runOnce(model, { settings: { maxSteps: 3 } });

    expect(model.requests.map((request) => request.tool_choice)).toEqual(['required', 'required', forcedFinalAnswer]);
    expect(run.status).toBe('stopped');
    expect(run.stopReason).toBe('step-limit');
    expect(run.userMessage).toBe('I stopped after 3 steps without reaching an answer. Try a narrower question.');
    // The last call was still answered, so the transcript can be sent again as it is.
    expect(run.transcript.at(-1)).toMatchObject({ role: 'tool', content: '6' });
  });

  it('answers when the forced last step calls final_answer', async () => {
    model.enqueue(calculate('1+1'), finalAnswer('2', ['calculator']));

    const run = await runOnce(model, { settings: { maxSteps: 2 } });

    expect(model.requests[1]!.tool_choice).toEqual(forcedFinalAnswer);
    expect(run.status).toBe('answered');
  });
});

describe('run time limit', () => {
  it('stops a run whose model call outlasts the limit', async () => {
    model.enqueue({ hang: true });

    const run = await runOnce(model, { settings: { runTimeoutMs: 300 } });

    expect(run.status).toBe('stopped');
    expect(run.stopReason).toBe('time-limit');
    expect(run.userMessage).toMatch(/^I ran out of time/);
    expect(model.requests).toHaveLength(1);
  });

  it('stops a run whose tool outlasts the limit, answering the call as cancelled', async () => {
    model.enqueue(toolCalls({ name: 'stuck', arguments: {} }));

    const run = await runOnce(model, {
      tools: buildToolRegistry([stuckTool(() => {})]),
      settings: { runTimeoutMs: 300, toolTimeoutMs: 10_000 },
    });

    expect(run.stopReason).toBe('time-limit');
    expect(run.transcript.at(-1)).toMatchObject({ role: 'tool', content: 'Cancelled: the run was stopped.' });
  });
});

describe('abort signal', () => {
  it('makes no model call when aborted before the run starts', async () => {
    const run = await runOnce(model, { signal: AbortSignal.abort() });

    expect(run.status).toBe('stopped');
    expect(run.stopReason).toBe('aborted');
    expect(model.requests).toHaveLength(0);
  });

  it('stops during a model call', async () => {
    const controller = new AbortController();
    model.enqueue(() => {
      setTimeout(() => controller.abort(), 20);
      return { hang: true };
    });

    const run = await runOnce(model, { signal: controller.signal });

    expect(run.stopReason).toBe('aborted');
    expect(run.userMessage).toBe('Stopped before an answer was reached.');
    expect(run.transcript).toEqual([{ role: 'user', content: 'Ada: hello' }]);
  });

  it('stops between steps: a cut-off tool call gets a "cancelled" message and no further model call is made', async () => {
    const controller = new AbortController();
    const tools = buildToolRegistry([...builtInTools, stuckTool(() => setTimeout(() => controller.abort(), 20))]);
    model.enqueue(
      toolCalls(
        { name: 'calculator', arguments: { expression: '1+1' }, id: 'call_done' },
        { name: 'stuck', arguments: {}, id: 'call_stuck' },
      ),
    );

    const run = await runOnce(model, { tools, signal: controller.signal });

    expect(run.stopReason).toBe('aborted');
    expect(run.transcript.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_done', content: '2' },
      { role: 'tool', tool_call_id: 'call_stuck', content: 'Cancelled: the run was stopped.' },
    ]);
    expect(model.requests).toHaveLength(1);
    expect(run.events.filter((event) => event.type === 'tool-error')).toMatchObject([
      { callId: 'call_stuck', kind: 'cancelled' },
    ]);
  });
});
