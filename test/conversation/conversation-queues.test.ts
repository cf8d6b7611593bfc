import { describe, expect, it, vi } from 'vitest';
import { ConversationQueues } from '../../src/conversation/conversation-queues.ts';

/** A promise with its resolve function outside, to hold work until the test lets it go. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('ConversationQueues', () => {
  it('runs one batch at a time per thread, batching what arrives during a run, up to the limit', async () => {
    const batches: string[][] = [];
    const first = gate();
    const queues = new ConversationQueues<string>(
      async (_thread, batch) => {
        batches.push(batch);
        if (batches.length === 1) await first.opened;
      },
      (error) => {
        throw error;
      },
      3,
    );

    queues.push('t1', 'a');
    for (const item of ['b', 'c', 'd', 'e']) queues.push('t1', item);
    first.open();
    await queues.idle();

    expect(batches).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    expect(queues.activeConversations).toBe(0);
  });

  it('runs different threads side by side, and keeps going after a failed batch', async () => {
    const started: string[] = [];
    const errors: string[] = [];
    const hold = gate();
    const queues = new ConversationQueues<string>(
      async (thread, batch) => {
        started.push(`${thread}:${batch.join()}`);
        if (thread === 't1' && batch[0] === 'a') {
          await hold.opened;
          throw new Error('boom');
        }
      },
      (error, thread) => errors.push(`${thread}: ${(error as Error).message}`),
    );

    queues.push('t1', 'a');
    queues.push('t2', 'x');
    queues.push('t1', 'b');
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['t1:a', 't2:x']);
    hold.open();
    await queues.idle();

    expect(started).toEqual(['t1:a', 't2:x', 't1:b']);
    expect(errors).toEqual(['t1: boom']);
  });

  it('runs afterDrain once the queue is empty, in its turn; work that arrives meanwhile fires newWork and is handled after it', async () => {
    const events: string[] = [];
    const summing = gate();
    let drains = 0;
    const queues = new ConversationQueues<string>(
      async (_thread, batch) => void events.push(`answer ${batch.join(',')}`),
      (error) => {
        throw error;
      },
      20,
      async (thread, newWork) => {
        drains += 1;
        events.push(`after ${thread}`);
        if (drains > 1) return;
        newWork.addEventListener('abort', () => events.push('new work'));
        await summing.opened;
        events.push(`after ${thread} ends`);
      },
    );

    queues.push('t1', 'a');
    await vi.waitFor(() => expect(events).toEqual(['answer a', 'after t1']));
    queues.push('t1', 'b');
    expect(events.at(-1)).toBe('new work');
    summing.open();
    await queues.idle();

    expect(events).toEqual(['answer a', 'after t1', 'new work', 'after t1 ends', 'answer b', 'after t1']);
  });
});
