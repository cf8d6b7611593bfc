/**
 * After the shard count changes, a shard's database may hold servers that are now another shard's:
 * their events no longer reach this process, so their conversations wait here unanswered until
 * their data is moved (`npm run reshard`). Told to the operator at start, with what to run.
 */
import type { Store } from '../../db/store.ts';
import type { Logger } from '../agent/logger.ts';
import { shardOf } from './shard-plan.ts';

export function warnOfOtherShardsServers(store: Store, shardId: number, shardCount: number, logger: Logger): void {
  const elsewhere = store.conversations.guilds().filter((guild) => shardOf(guild.guild_id, shardCount) !== shardId);
  if (elsewhere.length === 0) return;
  logger.warn(
    {
      servers: elsewhere.slice(0, 20).map((guild) => ({
        server: guild.guild_id,
        conversations: guild.conversations,
        shard: shardOf(guild.guild_id, shardCount),
      })),
      count: elsewhere.length,
    },
    `this shard's database holds ${elsewhere.length} server(s) that belong to other shards now (SHARD_COUNT ${shardCount}): move them with npm run reshard (README, "Scaling")`,
  );
}
