import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import { ModelGates, RateLimitGate } from '../../src/conversation/rate-limit-gate.ts';

/** Records what the conversation is told: the gate's own logic is under test here. */
function channel(posted: string[]) {
  return async (text: string) => void posted.push(text);
}

describe('RateLimitGate', () => {
  it('does not hold anyone when the model is not rate-limited', async () => {
    const posted: string[] = [];
    await new RateLimitGate(silentLogger).waitForModel('a', channel(posted), new AbortController().signal);
    expect(posted).toEqual([]);
  });

  it('tells a conversation once per pause, keeps waiting when the pause is extended, and lets go at once on abort', async () => {
    let now = 0;
    const gate = new RateLimitGate(silentLogger, () => now);
    const posted: string[] = [];
    gate.rateLimited(60, 'hit');

    const controller = new AbortController();
    const waiting = gate.waitForModel('other', channel(posted), controller.signal);
    await vi.waitFor(() => expect(posted).toHaveLength(1));
    gate.rateLimited(120, 'hit'); // an extension: nobody is told again
    // A notice would be posted (all in microtasks: the channel answers at once) before this abort runs.
    const later = new AbortController();
    setImmediate(() => later.abort());
    await gate.waitForModel('other', channel(posted), later.signal);
    controller.abort();
    await waiting;

    expect(posted).toEqual(['The model is rate-limited right now. I will answer here in about 60 seconds.']);
    now = 200_000; // that pause is over; a new one is news again
    gate.rateLimited(30, 'hit');
    const again = new AbortController();
    setTimeout(() => again.abort(), 10);
    await gate.waitForModel('other', channel(posted), again.signal);
    expect(posted).toEqual([
      'The model is rate-limited right now. I will answer here in about 60 seconds.',
      'The model is rate-limited right now. I will answer here in about 30 seconds.',
    ]);
  });

  it('holds back the runs of the model that met the limit only', async () => {
    const gates = new ModelGates(silentLogger);
    expect(gates.of('fast')).toBe(gates.of('fast'));
    gates.of('fast').rateLimited(60, 'hit');
    const posted: string[] = [];
    await gates.of('slow').waitForModel('other', channel(posted), new AbortController().signal);
    expect(posted).toEqual([]);
  });
});
