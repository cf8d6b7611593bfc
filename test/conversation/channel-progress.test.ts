import { describe, expect, it } from 'vitest';
import { ChannelProgress } from '../../src/conversation/channel-progress.ts';

describe('ChannelProgress', () => {
  it('moves a channel cursor past a message only once every older one in flight is handled', () => {
    const moves: string[] = [];
    const progress = new ChannelProgress((channelId, _guildId, messageId) => moves.push(`${channelId}@${messageId}`));
    const older = progress.begin('c', 'g', '100');
    const newer = progress.begin('c', 'g', '105');
    const elsewhere = progress.begin('d', 'g', '101');

    newer();
    expect(moves).toEqual([]); // 100 is still on its way in: a crash now must read it again.
    elsewhere();
    older();
    expect(moves).toEqual(['d@101', 'c@105']);

    const next = progress.begin('c', 'g', '110');
    next();
    expect(moves.at(-1)).toBe('c@110');
  });
});
