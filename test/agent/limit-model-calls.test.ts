import { describe, expect, it } from 'vitest';
import { limitModelCalls } from '../../src/agent/limit-model-calls.ts';
import type { ModelClient } from '../../src/agent/model-client.ts';

/** A promise with its resolve function outside, to hold work until the test lets it go. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('limitModelCalls', () => {
  it('lets at most N model calls run at once, and lets a waiting call leave when aborted', async () => {
    let running = 0;
    let most = 0;
    const release = gate();
    const slow: ModelClient = {
      model: 'slow',
      async complete() {
        running += 1;
        most = Math.max(most, running);
        await release.opened;
        running -= 1;
        return { message: { role: 'assistant', content: 'ok' }, usage: null, finishReason: 'stop', model: 'slow' };
      },
    };
    const limited = limitModelCalls(slow, 2);
    const request = { messages: [], tools: [], toolChoice: 'required' as const };
    const calls = [1, 2, 3, 4].map(() => limited.complete(request, new AbortController().signal));
    const leaving = new AbortController();
    const aborted = limited.complete(request, leaving.signal);
    await new Promise((resolve) => setImmediate(resolve));

    expect([limited.active, limited.waiting]).toEqual([2, 3]);
    leaving.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    expect(limited.waiting).toBe(2);
    release.open();
    await Promise.all(calls);
    expect(most).toBe(2);
    // A turn passes on once its caller has taken in the answer (a macrotask later).
    await new Promise((resolve) => setImmediate(resolve));
    expect(limited.active).toBe(0);
  });

  it('holds a turn for a run that checks its budget first: spent on its first call, or given back', async () => {
    const calls: string[] = [];
    const answer = {
      message: { role: 'assistant' as const, content: 'ok' },
      usage: null,
      finishReason: 'stop',
      model: 'm',
    };
    const client: ModelClient = {
      model: 'm',
      async complete(request) {
        calls.push(String(request.messages[0]?.content as string));
        return answer;
      },
    };
    const limited = limitModelCalls(client, 1);
    const request = (name: string) => ({
      messages: [{ role: 'user' as const, content: name }],
      tools: [],
      toolChoice: 'required' as const,
    });
    const signal = new AbortController().signal;

    const first = await limited.turn(signal);
    expect(limited.active).toBe(1);
    // Another caller waits behind the held turn until it is spent.
    const other = limited.complete(request('other'), signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect([limited.active, limited.waiting, calls]).toEqual([1, 1, []]);
    await first.client.complete(request('first'), signal);
    first.release(); // Spent already: nothing to give back.
    await other;
    expect(calls).toEqual(['first', 'other']);

    // A refused run gives its turn back unspent; the next caller gets it.
    await new Promise((resolve) => setImmediate(resolve));
    const refused = await limited.turn(signal);
    const after = limited.complete(request('after'), signal);
    refused.release();
    refused.release();
    await after;
    await new Promise((resolve) => setImmediate(resolve));
    expect([limited.active, limited.waiting]).toEqual([0, 0]);

    // A wait for a turn ends with the signal.
    const held = await limited.turn(signal);
    const leaving = new AbortController();
    const waiting = limited.turn(leaving.signal);
    leaving.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    held.release();
    expect(limited.waiting).toBe(0);
  });
});
