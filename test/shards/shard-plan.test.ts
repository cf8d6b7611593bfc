import { describe, expect, it } from 'vitest';
import {
  isSharded,
  restRequestsPerSecond,
  shardDatabasePath,
  shardOf,
  shardsOfThisProcess,
} from '../../src/shards/shard-plan.ts';

describe('the shard plan', () => {
  it("puts a server on shard (id >> 22) % count, as Discord's gateway does", () => {
    // The example of Discord's docs: https://discord.com/developers/docs/topics/gateway#sharding
    // The id's top bits (its timestamp) are 46977624770: shard 0 of 2, 2 of 3, 2 of 16.
    expect(shardOf('197038439483310086', 1)).toBe(0);
    expect(shardOf('197038439483310086', 2)).toBe(0);
    expect(shardOf('197038439483310086', 3)).toBe(2);
    expect(shardOf('197038439483310086', 16)).toBe(2);
    // The low 22 bits (worker, process, increment) never matter.
    expect(shardOf(String((12345n << 22n) | 4_194_303n), 10)).toBe(5);
  });

  it('keeps DATABASE_PATH for shard 0 and puts shard N beside it', () => {
    expect(shardDatabasePath('./data/bot.sqlite', 0)).toBe('./data/bot.sqlite');
    expect(shardDatabasePath('./data/bot.sqlite', 3)).toBe('./data/bot.shard-3.sqlite');
    expect(shardDatabasePath('/var/lib/bot/db', 2)).toBe('/var/lib/bot/db.shard-2');
    expect(shardDatabasePath('./data.d/bot', 1)).toBe('./data.d/bot.shard-1');
    expect(shardDatabasePath('.bot', 1)).toBe('.bot.shard-1');
  });

  it("gives each process its shards' share of Discord's 50 requests a second, at least 1", () => {
    expect(restRequestsPerSecond(1, 1)).toBe(50);
    expect(restRequestsPerSecond(1, 4)).toBe(12);
    expect(restRequestsPerSecond(2, 4)).toBe(25);
    expect(restRequestsPerSecond(1, 100)).toBe(1);
  });

  it('runs a manager for more than one shard, or for shards of a host that are not shard 0 alone', () => {
    expect(isSharded({ count: 1, ids: null })).toBe(false);
    expect(isSharded({ count: 1, ids: [0] })).toBe(false);
    expect(isSharded({ count: 2, ids: null })).toBe(true);
    expect(isSharded({ count: 'auto', ids: null })).toBe(true);
  });

  it("reads the shards a process runs from what discord.js's ShardingManager gives it", () => {
    expect(shardsOfThisProcess({})).toBeNull();
    expect(shardsOfThisProcess({ SHARDING_MANAGER: 'true', SHARDS: '[3]', SHARD_COUNT: '4' })).toEqual({
      ids: [3],
      count: 4,
    });
    expect(shardsOfThisProcess({ SHARDING_MANAGER: 'true', SHARDS: '2', SHARD_COUNT: '4' })).toEqual({
      ids: [2],
      count: 4,
    });
  });
});
