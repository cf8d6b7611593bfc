/**
 * The bot's health, as its own state tells it, in a small file beside the database: written every
 * few seconds by the running bot, read by `npm run health` (a container's health check). Nothing
 * listens on a port for it, and the file lives on the database's volume with the bot's data.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export interface HealthState {
  pid: number;
  /** When the bot last wrote the file (ms since the epoch). */
  updatedAt: number;
  /** Whether the gateway connection is up, and since when it has been as it is. */
  gateway: 'connected' | 'disconnected';
  gatewaySince: number;
}

/** How often the bot writes it; a file older than three writes means the bot is stuck or gone. */
const healthWriteMs = 5_000;
export const healthStaleMs = 3 * healthWriteMs;
/** Reconnecting is normal; down longer than this is not healthy. */
export const gatewayDownLimitMs = 120_000;

/** Where the health file of the bot using the database at `databasePath` is. */
export const healthFilePath = (databasePath: string) => `${databasePath}.health.json`;

/** Writes the state every `healthWriteMs` (atomically: a reader never sees half a file) until stopped; stopping removes the file. */
export function keepHealthFile(path: string, connected: () => boolean): { stop(): void } {
  let gateway: HealthState['gateway'] | null = null;
  let gatewaySince = Date.now();
  const write = () => {
    const now = connected() ? 'connected' : 'disconnected';
    if (now !== gateway) [gateway, gatewaySince] = [now, Date.now()];
    const state: HealthState = { pid: process.pid, updatedAt: Date.now(), gateway: now, gatewaySince };
    try {
      writeFileSync(`${path}.tmp`, JSON.stringify(state));
      renameSync(`${path}.tmp`, path);
    } catch {
      // A full disk or a read-only volume: the file goes stale, and the health check says so.
    }
  };
  write();
  const timer = setInterval(write, healthWriteMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      rmSync(path, { force: true });
    },
  };
}

/** Whether the state read from the file is healthy, and why not. */
export function judgeHealth(state: HealthState | null, now: number): { healthy: boolean; why: string } {
  if (!state) return { healthy: false, why: 'no health file: the bot is not running (or not ready yet)' };
  const age = now - state.updatedAt;
  if (age > healthStaleMs)
    return { healthy: false, why: `the bot last wrote its health ${Math.round(age / 1000)} s ago: stuck or gone` };
  const down = now - state.gatewaySince;
  if (state.gateway === 'disconnected' && down > gatewayDownLimitMs)
    return { healthy: false, why: `the Discord gateway has been down for ${Math.round(down / 1000)} s` };
  return {
    healthy: true,
    why:
      state.gateway === 'connected' ? 'connected to Discord' : `reconnecting to Discord (${Math.round(down / 1000)} s)`,
  };
}

/** The state in the file, or null if there is none (or it cannot be read). */
export function readHealthFile(path: string): HealthState | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as HealthState;
  } catch {
    return null;
  }
}

/** The shards a shard manager runs on this host, from the list it keeps beside the database; null when not sharded. */
export function readShardList(path: string): { ids: number[] } | null {
  try {
    const list = JSON.parse(readFileSync(path, 'utf8')) as { ids?: unknown };
    return Array.isArray(list.ids) ? { ids: list.ids.map(Number) } : null;
  } catch {
    return null;
  }
}

/** Healthy when every shard is (a shard of null: not sharded); the reasons of the unhealthy ones, or the one healthy reason. */
export function judgeShards(
  shards: readonly { shard: number | null; state: HealthState | null }[],
  now: number,
): { healthy: boolean; why: string } {
  const verdicts = shards.map(({ shard, state }) => ({ shard, ...judgeHealth(state, now) }));
  const named = (verdict: { shard: number | null; why: string }) =>
    verdict.shard === null ? verdict.why : `shard ${verdict.shard}: ${verdict.why}`;
  const unhealthy = verdicts.filter((verdict) => !verdict.healthy);
  if (unhealthy.length > 0) return { healthy: false, why: unhealthy.map(named).join('; ') };
  if (verdicts.length === 1) return { healthy: true, why: named(verdicts[0]!) };
  return {
    healthy: true,
    why: `${verdicts.length} shards, all ${verdicts.every((verdict) => verdict.why === 'connected to Discord') ? 'connected to Discord' : 'up'}`,
  };
}
