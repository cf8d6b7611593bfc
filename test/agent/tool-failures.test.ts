import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UserFacingError } from '../../src/agent/errors.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { formatObservation, maxObservationChars } from '../../src/agent/tool-turn.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { runOnce } from '../support/agent-harness.ts';
import {
  type ScriptedModel,
  finalAnswer,
  lastToolMessage,
  startScriptedModel,
  toolCalls,
} from '../support/fake-model.ts';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

describe('a failing tool becomes an observation and the loop goes on', () => {
  it('when it throws', async () => {
    const flaky = defineTool({
      name: 'flaky',
      description: 'Always fails.',
      parameters: z.object({}),
      execute() {
        throw new Error('the upstream service said no');
      },
    });
    model.enqueue(toolCalls({ name: 'flaky', arguments: {} }), (request) => {
      expect(lastToolMessage(request)).toBe('Error: the upstream service said no');
      return finalAnswer('It failed.', ['flaky']);
    });

    const run = await runOnce(model, { tools: buildToolRegistry([flaky]) });

    expect(run.status).toBe('answered');
    // A tool that ran, even unsuccessfully, counts as called.
    expect(run.answer?.tools_used).toEqual(['flaky']);
    expect(run.events.find((event) => event.type === 'tool-error')).toMatchObject({ kind: 'threw', name: 'flaky' });
  });

  it('when it throws a user-facing error, the model sees only its safe message', async () => {
    const guarded = defineTool({
      name: 'guarded',
      description: 'Refuses.',
      parameters: z.object({}),
      execute() {
        throw new UserFacingError('refused', 'That page is not allowed.', {
          detail: 'blocked 10.0.0.1 (private range)',
        });
      },
    });
    model.enqueue(toolCalls({ name: 'guarded', arguments: {} }), (request) => {
      expect(lastToolMessage(request)).toBe('Error: That page is not allowed.');
      return finalAnswer('Not allowed.');
    });

    await runOnce(model, { tools: buildToolRegistry([guarded]) });
  });

  it('when it runs past its time limit, even if it ignores its signal', async () => {
    let signalFired = false;
    const slow = defineTool({
      name: 'slow',
      description: 'Takes forever.',
      parameters: z.object({}),
      execute(_args, context) {
        context.signal.addEventListener('abort', () => {
          signalFired = true;
        });
        return new Promise(() => {});
      },
    });
    model.enqueue(toolCalls({ name: 'slow', arguments: {} }), (request) => {
      expect(lastToolMessage(request)).toBe('Error: slow did not finish within 0.2 seconds.');
      return finalAnswer('Too slow.');
    });

    const run = await runOnce(model, { tools: buildToolRegistry([slow]), settings: { toolTimeoutMs: 200 } });

    expect(run.status).toBe('answered');
    expect(signalFired).toBe(true);
    expect(run.events.find((event) => event.type === 'tool-error')).toMatchObject({ kind: 'timeout' });
  });
});

describe('formatObservation', () => {
  it('passes text through, writes other values as JSON, and cuts what is too long', () => {
    expect(formatObservation('14')).toBe('14');
    expect(formatObservation({ a: 1 })).toBe('{"a":1}');
    expect(formatObservation(undefined)).toBe('(no result)');
    const long = formatObservation('x'.repeat(maxObservationChars + 10));
    expect(long).toBe(`${'x'.repeat(maxObservationChars)}\n[cut: 10 more characters]`);
  });
});

describe('a tool that needs a confirmation where nobody can be asked', () => {
  it('is never run: the model is told why', async () => {
    let ran = false;
    const [erase] = buildToolRegistry([
      defineTool({
        name: 'erase',
        description: 'Erases everything.',
        parameters: z.object({}),
        execute() {
          ran = true;
          return 'erased';
        },
      }),
    ]);
    model.enqueue(toolCalls({ name: 'erase', arguments: {} }), (request) => {
      expect(lastToolMessage(request)).toBe(
        'Not executed: erase needs the confirmation of the person who asked, and nobody can be asked for it here. Do not call it again.',
      );
      return finalAnswer('I could not erase it.');
    });

    const run = await runOnce(model, { tools: [{ ...erase!, needsConfirmation: true }] });

    expect(run.status).toBe('answered');
    expect(ran).toBe(false);
    expect(run.events.find((event) => event.type === 'tool-error')).toMatchObject({
      kind: 'not-confirmed',
      name: 'erase',
    });
  });
});
