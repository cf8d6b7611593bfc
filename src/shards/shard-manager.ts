/**
 * `npm start` with SHARD_COUNT above 1 (or `auto`): discord.js's ShardingManager starts one process
 * per shard of this host (SHARD_IDS), each the same bot (src/main.ts) with its own database, instance
 * lock, catch-up and reminders, and starts a shard again when its process dies. This process holds
 * no connection of its own: it spawns, watches, and passes SIGTERM/SIGINT on.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { REST, Routes, type RESTGetAPIGatewayBotResult, ShardingManager } from 'discord.js';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { describeError } from '../errors.ts';
import { shardListPath } from './shard-plan.ts';

/** However the shards stop, the manager is gone this long after the signal (theirs is 10 s). */
const hardExitMs = 12_000;

/** Runs the shards of this host until a signal; exits the process. */
export async function runShardManager(config: Config, logger: Logger): Promise<never> {
  const token = config.discord.token!;
  let gateway: RESTGetAPIGatewayBotResult;
  try {
    gateway = (await new REST({ api: config.discord.apiUrl })
      .setToken(token)
      .get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
  } catch (error) {
    logger.fatal({ err: error }, `could not ask Discord how to shard: ${describeError(error)}`);
    process.exit(1);
  }
  const count = config.shards.count === 'auto' ? gateway.shards : config.shards.count;
  const ids = config.shards.ids ?? [...Array(count).keys()];
  const outside = ids.filter((id) => id >= count);
  if (outside.length > 0) {
    logger.fatal(
      { shardCount: count, shardIds: ids },
      `SHARD_IDS names shards ${outside.join(', ')}, but there are ${count}`,
    );
    process.exit(1);
  }
  const listPath = shardListPath(config.databasePath);
  writeFileSync(listPath, JSON.stringify({ pid: process.pid, count, ids }));

  const manager = new ShardingManager(process.argv[1]!, {
    totalShards: count,
    shardList: ids,
    mode: 'process',
    respawn: true,
    token,
    execArgv: process.execArgv,
  });
  manager.on('shardCreate', (shard) => {
    shard.on('death', (child) => {
      const code = 'exitCode' in child ? child.exitCode : null;
      if (manager.respawn) logger.warn({ shard: shard.id, exitCode: code }, 'shard process exited: starting it again');
    });
    // A failed restart is retried at the shard's next death; logged, never thrown (an EventEmitter's unheard 'error' would end the manager).
    shard.on('error', (error) => logger.error({ shard: shard.id, err: error }, 'shard process failed'));
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    manager.respawn = false;
    logger.info({ signal }, 'shutting down the shards');
    setTimeout(() => {
      logger.error({ afterMs: hardExitMs }, 'shards took too long to stop: exiting');
      for (const shard of manager.shards.values()) shard.process?.kill('SIGKILL');
      process.exit(1);
    }, hardExitMs).unref();
    const exits = [...manager.shards.values()].map((shard) => {
      const child = shard.process;
      if (child === null || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      return exited;
    });
    await Promise.all(exits);
    rmSync(listPath, { force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));

  // Discord lets `max_concurrency` shards identify every 5 seconds (https://discord.com/developers/docs/events/gateway#session-start-limit-object).
  const delay = Math.ceil(5_500 / Math.max(1, gateway.session_start_limit.max_concurrency));
  logger.info({ shardCount: count, shardIds: ids }, 'starting the shards');
  try {
    await manager.spawn({ amount: count, delay, timeout: 60_000 });
  } catch (error) {
    logger.fatal({ err: error }, `a shard could not start: ${describeError(error)}`);
    manager.respawn = false;
    for (const shard of manager.shards.values()) shard.kill();
    rmSync(listPath, { force: true });
    process.exit(1);
  }
  logger.info({ shardCount: count, shardIds: ids }, 'shards ready');
  return new Promise<never>(() => {});
}
