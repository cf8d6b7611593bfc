/**
 * `npm start` with SHARD_COUNT above 1 (or `auto`): discord.js's ShardingManager starts one process
 * per shard of this host (SHARD_IDS), each the same bot (src/main.ts) with its own database, instance
 * lock, catch-up and reminders, and starts a shard again when its process dies (waiting longer each
 * time it dies soon after starting: 1 s, 2 s, 4 s … a minute). This process holds no connection of
 * its own: it spawns, watches, and passes SIGTERM/SIGINT on. A shard process whose manager is gone
 * stops too (src/main.ts), so a manager killed outright leaves no shard holding its database; and
 * this process stops its shards when npm, which started it, is stopped (src/shards/parent-process.ts).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { REST, Routes, type RESTGetAPIGatewayBotResult, type Shard, ShardingManager } from 'discord.js';
import type { Logger } from 'pino';
import { makeDatabaseFolder } from '../../db/database-folder.ts';
import type { Config } from '../settings/config-shape.ts';
import { describeStartFailure } from '../discord/discord-errors.ts';
import { describeError, errorMessage } from '../agent/errors.ts';
import { whenParentGone } from './parent-process.ts';
import { misplacedServersProblem } from './shard-files.ts';
import { shardListPath } from './shard-plan.ts';

/** However the shards stop, the manager is gone this long after the signal (theirs is 10 s). */
const hardExitMs = 12_000;
/** A shard that dies is started again after 1 s, doubling to a minute while it keeps dying; up a minute, it starts afresh. */
const restartDelayMs = { first: 1_000, most: 60_000, upForMs: 60_000 };

/** A shard's restarts: the wait before the next, since when it is up, and the restart waiting. */
interface Restart {
  delayMs: number;
  since: number;
  timer?: NodeJS.Timeout;
}

/** What the manager keeps while it runs. */
interface ManagerState {
  /** All shards came up once: from then on, a dying shard is started again. */
  started: boolean;
  stopping: boolean;
  restarts: Map<number, Restart>;
}

/** Runs the shards of this host until a signal; exits the process. */
export async function runShardManager(config: Config, logger: Logger): Promise<never> {
  const token = config.discord.token!;
  const gateway = await gatewayOrExit(config, token);
  const { count, ids } = shardsOfThisHost(config, gateway);
  const listPath = writeShardList(config, count, ids);

  const manager = new ShardingManager(process.argv[1]!, {
    totalShards: count,
    shardList: ids,
    mode: 'process',
    // Started again here, with growing waits: discord.js's own respawn starts a dying shard at once, for ever.
    respawn: false,
    token,
    execArgv: process.execArgv,
  });
  const state: ManagerState = { started: false, stopping: false, restarts: new Map() };
  manager.on('shardCreate', (shard) => superviseShard(shard, state, logger));

  const stop = (signal: string) => void stopShards(manager, state, listPath, signal, logger);
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // Under npm, npm alone gets a process manager's SIGTERM and leaves this process behind (src/shards/parent-process.ts).
  whenParentGone(() => stop('parent gone'));

  // Discord lets `max_concurrency` shards identify every 5 seconds (https://discord.com/developers/docs/events/gateway#session-start-limit-object).
  const delay = Math.ceil(5_500 / Math.max(1, gateway.session_start_limit.max_concurrency));
  logger.info({ shardCount: count, shardIds: ids }, 'starting the shards');
  try {
    await manager.spawn({ amount: count, delay, timeout: 60_000 });
  } catch (error) {
    console.error(`Cannot start: a shard could not start (${describeError(error)}).`);
    state.stopping = true;
    for (const shard of manager.shards.values()) shard.kill();
    rmSync(listPath, { force: true });
    process.exit(1);
  }
  state.started = true;
  logger.info({ shardCount: count, shardIds: ids }, 'shards ready');
  return new Promise<never>(() => {});
}

/** Discord's gateway information for the bot (its recommended shard count, its identify rate). */
async function gatewayOrExit(config: Config, token: string): Promise<RESTGetAPIGatewayBotResult> {
  try {
    return (await new REST({ api: config.discord.apiUrl })
      .setToken(token)
      .get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
  } catch (error) {
    // Worded as when one process logs in: every refusal to start is plain text on stderr.
    console.error(describeStartFailure(error, config.discord.apiUrl));
    process.exit(1);
  }
}

/** The shards in all and those of this host, refused when SHARD_IDS or the databases do not fit them. */
function shardsOfThisHost(config: Config, gateway: RESTGetAPIGatewayBotResult): { count: number; ids: number[] } {
  const count = config.shards.count === 'auto' ? gateway.shards : config.shards.count;
  const ids = config.shards.ids ?? [...Array(count).keys()];
  const outside = ids.filter((id) => id >= count);
  if (outside.length > 0) {
    console.error(`Cannot start: SHARD_IDS names shards ${outside.join(', ')}, but there are ${count}.`);
    process.exit(1);
  }
  const misplaced = misplacedServersProblem(config.databasePath, count, ids);
  if (misplaced) {
    console.error(misplaced);
    process.exit(1);
  }
  return { count, ids };
}

/** Writes the list of this host's shards beside the database; returns its path. */
function writeShardList(config: Config, count: number, ids: number[]): string {
  const listPath = shardListPath(config.databasePath);
  // Before any shard has opened (and so made) the database's folder, on a first start.
  try {
    makeDatabaseFolder(config.databasePath);
  } catch (error) {
    console.error(errorMessage(error));
    process.exit(1);
  }
  writeFileSync(listPath, JSON.stringify({ pid: process.pid, count, ids }));
  return listPath;
}

/** Starts a shard again when its process dies after all came up, waiting longer each time it dies soon after starting. */
function superviseShard(shard: Shard, state: ManagerState, logger: Logger): void {
  state.restarts.set(shard.id, { delayMs: restartDelayMs.first, since: Date.now() });
  shard.on('spawn', () => (state.restarts.get(shard.id)!.since = Date.now()));
  shard.on('death', (child) => {
    // Before all are up, a death fails the start (manager.spawn rejects): nothing to start again.
    if (state.stopping || !state.started) return;
    const restart = state.restarts.get(shard.id)!;
    if (Date.now() - restart.since >= restartDelayMs.upForMs) restart.delayMs = restartDelayMs.first;
    const code = 'exitCode' in child ? child.exitCode : null;
    logger.warn(
      { shard: shard.id, exitCode: code, restartInMs: restart.delayMs },
      'shard process exited: starting it again',
    );
    restart.timer = setTimeout(() => {
      // Its failure to get ready shows as another death (which schedules the next try), or as the rejection here.
      shard
        .spawn(60_000)
        .catch((error: unknown) => logger.error({ shard: shard.id, err: error }, 'shard process could not start'));
    }, restart.delayMs);
    restart.delayMs = Math.min(restart.delayMs * 2, restartDelayMs.most);
  });
  // Logged, never thrown: an EventEmitter's unheard 'error' would end the manager.
  shard.on('error', (error) => logger.error({ shard: shard.id, err: error }, 'shard process failed'));
}

/** Passes the signal on to every shard process, waits for them to exit (killing them after a while), and exits. */
async function stopShards(
  manager: ShardingManager,
  state: ManagerState,
  listPath: string,
  signal: string,
  logger: Logger,
): Promise<void> {
  if (state.stopping) return;
  state.stopping = true;
  for (const restart of state.restarts.values()) clearTimeout(restart.timer);
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
}
