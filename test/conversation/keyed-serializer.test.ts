import { describe, expect, it } from 'vitest';
import { KeyedSerializer } from '../../src/conversation/keyed-serializer.ts';

describe('KeyedSerializer', () => {
  it('runs the tasks of a key one after another, in order, keys side by side, and forgets idle keys', async () => {
    const line = new KeyedSerializer();
    const log: string[] = [];
    let letFirstGo: () => void = () => {};
    const first = line.run('a', async () => {
      log.push('a1 start');
      await new Promise<void>((resolve) => {
        letFirstGo = resolve;
      });
      log.push('a1 end');
      throw new Error('a1 failed');
    });
    const second = line.run('a', async () => void log.push('a2'));
    const other = line.run('b', async () => void log.push('b1'));
    await other;
    // The first task started at once; the second waits for it, whatever becomes of it.
    expect(log).toEqual(['a1 start', 'b1']);
    const settled = line.settled('a');
    letFirstGo();
    await expect(first).rejects.toThrow('a1 failed');
    await second;
    await settled;
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
    await line.idle();
    expect(line.activeKeys).toBe(0);
  });
});
