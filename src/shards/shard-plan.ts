/**
 * Which shard is whose, and where each shard keeps its data. Discord sends a server's events to
 * shard `(guild_id >> 22) % shard count` (https://discord.com/developers/docs/topics/gateway#sharding);
 * that shard owns the server's conversations, and keeps them in a database file of its own.
 */
import type { ShardSettings } from '../settings/config-shape.ts';

/** The shard that receives a server's events. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/** Whether the settings ask for shard processes under a manager (rather than one process, as before sharding). */
export function isSharded(settings: ShardSettings): boolean {
  return (
    settings.count === 'auto' || settings.count > 1 || (settings.ids !== null && settings.ids.some((id) => id > 0))
  );
}

/**
 * The database of a shard: shard 0 keeps DATABASE_PATH itself (so a bot that grows from one
 * process to several keeps its file), shard N a file beside it: `bot.sqlite` → `bot.shard-N.sqlite`.
 */
export function shardDatabasePath(databasePath: string, shardId: number): string {
  if (shardId === 0) return databasePath;
  const dot = databasePath.lastIndexOf('.');
  const slash = Math.max(databasePath.lastIndexOf('/'), databasePath.lastIndexOf('\\'));
  return dot > slash + 1
    ? `${databasePath.slice(0, dot)}.shard-${shardId}${databasePath.slice(dot)}`
    : `${databasePath}.shard-${shardId}`;
}

/**
 * Discord allows a bot 50 REST requests a second in all, across its shards
 * (https://discord.com/developers/docs/topics/rate-limits#global-rate-limit). Each process's
 * client limits itself, and processes do not talk: a process gets its shards' share.
 */
export function restRequestsPerSecond(shardsInProcess: number, shardCount: number): number {
  return Math.max(1, Math.floor((50 * shardsInProcess) / shardCount));
}

/** The shards of this process, when a shard manager started it (discord.js's ShardingManager sets these). */
export function shardsOfThisProcess(
  environment: NodeJS.ProcessEnv = process.env,
): { ids: number[]; count: number } | null {
  if (!environment.SHARDING_MANAGER || environment.SHARDS === undefined) return null;
  const ids = JSON.parse(environment.SHARDS) as number[] | number;
  return { ids: Array.isArray(ids) ? ids : [ids], count: Number(environment.SHARD_COUNT) };
}

/** Where the shard manager writes which shards this host runs, for the health check. */
export const shardListPath = (databasePath: string) => `${databasePath}.shards.json`;
