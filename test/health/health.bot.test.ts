/**
 * `npm run health`, the container's health check: the bot's own account of itself, read from the
 * file it keeps beside its database.
 */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  gatewayDownLimitMs,
  healthFilePath,
  type HealthState,
  healthStaleMs,
  judgeHealth,
  judgeShards,
} from '../../src/health/health-file.ts';
import { useBotProcessWorld } from '../support/bot-process-world.ts';
import { runScript } from '../support/run-process.ts';

describe('the health verdict', () => {
  const now = 1_000_000_000;
  const state = (changes: Partial<HealthState>): HealthState => ({
    pid: 1,
    updatedAt: now - 1000,
    gateway: 'connected',
    gatewaySince: now - 60_000,
    ...changes,
  });

  it('is healthy while the bot writes its file and is connected, or reconnecting for a short while', () => {
    expect(judgeHealth(state({}), now)).toEqual({ healthy: true, why: 'connected to Discord' });
    expect(judgeHealth(state({ gateway: 'disconnected', gatewaySince: now - 30_000 }), now)).toEqual({
      healthy: true,
      why: 'reconnecting to Discord (30 s)',
    });
  });

  it('sharded: healthy when every shard of the host is, else names each shard that is not', () => {
    const up = state({});
    expect(judgeShards([{ shard: null, state: up }], now)).toEqual({ healthy: true, why: 'connected to Discord' });
    expect(
      judgeShards(
        [0, 1, 2].map((shard) => ({ shard, state: up })),
        now,
      ),
    ).toEqual({
      healthy: true,
      why: '3 shards, all connected to Discord',
    });
    expect(
      judgeShards(
        [
          { shard: 0, state: up },
          { shard: 1, state: null },
          { shard: 2, state: state({ updatedAt: now - healthStaleMs - 1000 }) },
        ],
        now,
      ),
    ).toEqual({
      healthy: false,
      why: 'shard 1: no health file: the bot is not running (or not ready yet); shard 2: the bot last wrote its health 16 s ago: stuck or gone',
    });
  });

  it('is unhealthy with no file, a stale one, or the gateway down too long', () => {
    expect(judgeHealth(null, now).healthy).toBe(false);
    expect(judgeHealth(state({ updatedAt: now - healthStaleMs - 1 }), now)).toMatchObject({
      healthy: false,
      why: expect.stringContaining('stuck or gone'),
    });
    expect(
      judgeHealth(state({ gateway: 'disconnected', gatewaySince: now - gatewayDownLimitMs - 1000 }), now),
    ).toMatchObject({ healthy: false, why: expect.stringContaining('gateway has been down') });
  });
});

describe('npm run health against the running bot', () => {
  const world = useBotProcessWorld('health-');

  it('says healthy once the bot is ready, and unhealthy once it has stopped', async () => {
    const { databasePath } = world;
    const health = () => runScript('src/health.ts', { cwd: tmpdir(), env: { DATABASE_PATH: databasePath } });

    const before = await health();
    expect(before).toMatchObject({ code: 1, stdout: expect.stringContaining('unhealthy: no health file') });

    const bot = await world.start();
    await bot.waitForLog('ready');
    expect(await health()).toMatchObject({
      code: 0,
      stdout: `healthy: connected to Discord (read ${healthFilePath(databasePath)})\n`,
    });

    bot.child.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
    expect(await health()).toMatchObject({ code: 1, stdout: expect.stringContaining('no health file') });
  });
});
