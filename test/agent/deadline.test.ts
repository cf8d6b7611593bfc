import { describe, expect, it, vi } from 'vitest';
import { deadline } from '../../src/agent/deadline.ts';

describe('a deadline under a parent signal', () => {
  it('stops a race when the parent fires, and a signal asked for afterwards is already aborted with its reason', async () => {
    const parent = new AbortController();
    const limit = deadline(60_000, parent.signal);
    const never = new Promise<string>(() => {});
    const raced = limit.race(never);
    parent.abort(new Error('stopped by /stop'));
    await expect(raced).rejects.toThrow('stopped by /stop');
    expect(limit.signal.aborted).toBe(true);
    expect(limit.signal.reason).toEqual(new Error('stopped by /stop'));
    expect(limit.expired).toBe(false);
    limit.dispose();
  });

  it('runs out: the race rejects with a TimeoutError, a signal read earlier fires, and work that settles first wins', async () => {
    vi.useFakeTimers();
    try {
      const limit = deadline(1_000);
      const signal = limit.signal;
      await expect(limit.race(Promise.resolve('in time'))).resolves.toBe('in time');
      const late = limit.race(new Promise((resolve) => setTimeout(resolve, 5_000, 'late')));
      const outcome = expect(late).rejects.toMatchObject({ name: 'TimeoutError' });
      await vi.advanceTimersByTimeAsync(1_000);
      await outcome;
      expect(limit.expired).toBe(true);
      expect(signal.aborted).toBe(true);
      limit.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('once disposed, hears its parent no more; a work failing after it lost the race is no unhandled rejection', async () => {
    const parent = new AbortController();
    const first = deadline(60_000, parent.signal);
    let fail!: (error: Error) => void;
    const raced = first.race(new Promise<never>((_, reject) => (fail = reject)));
    const second = deadline(60_000, parent.signal);
    second.dispose();
    parent.abort('stop');
    await expect(raced).rejects.toBe('stop');
    // vitest fails the run on an unhandled rejection: this one is swallowed by the race it lost.
    fail(new Error('the tool failed after the stop'));
    first.dispose();
    expect(second.signal.aborted).toBe(false);
  });

  it("stands still while held (a person answering a tool's question), then runs on with the time it had left", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const limit = deadline(1_000);
      await vi.advanceTimersByTimeAsync(600);
      const first = limit.hold();
      const second = limit.hold();
      await vi.advanceTimersByTimeAsync(5_000);
      first();
      first(); // Once only: the second hold still stands.
      await vi.advanceTimersByTimeAsync(5_000);
      expect(limit.expired).toBe(false);
      second();
      await vi.advanceTimersByTimeAsync(399);
      expect(limit.expired).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(limit.expired).toBe(true);
      limit.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});
