import { describe, expect, it, vi } from 'vitest';
import type { SendableChannels } from 'discord.js';
import { silentLogger } from '../../src/agent/logger.ts';
import type { PostTarget } from '../../src/discord/outbound/posting-channel.ts';
import { RateLimitGate } from '../../src/conversation/rate-limit-gate.ts';

/** A channel that only records what would be posted: the gate's own logic is under test here. */
function channel(posted: string[]): PostTarget {
  const sendable = {
    id: 'c',
    send: async (options: { content: string }) => (posted.push(options.content), { id: String(posted.length) }),
  } as unknown as SendableChannels;
  return { channel: sendable, replyTo: null };
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
});
