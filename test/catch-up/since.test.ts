/** `/summarize since:` read: a duration, a message link of this channel, nothing, or a refusal. */
import { describe, expect, it } from 'vitest';
import { resolveSince } from '../../src/catch-up/since.ts';

const now = 1_000_000_000;

describe('resolveSince', () => {
  it('reads a duration as that long ago', () => {
    expect(resolveSince('2h', '2', now)).toEqual({ kind: 'time', since: now - 2 * 3600_000 });
    expect(resolveSince('1w', '2', now)).toEqual({ kind: 'time', since: now - 7 * 86_400_000 });
  });

  it('reads a message link of this channel, and refuses one of another channel', () => {
    expect(resolveSince('https://discord.com/channels/1/2/3', '2', now)).toEqual({ kind: 'message', messageId: '3' });
    expect(resolveSince('https://discord.com/channels/1/9/3', '2', now).kind).toBe('refused');
  });

  it("defaults to the asker's last message and refuses what it cannot read", () => {
    expect(resolveSince(null, '2', now)).toEqual({ kind: 'askers-last', orSince: now - 86_400_000 });
    expect(resolveSince('yesterday', '2', now).kind).toBe('refused');
    expect(resolveSince('0h', '2', now).kind).toBe('refused');
  });
});
