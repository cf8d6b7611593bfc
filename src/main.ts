/**
 * `npm start`: the Discord bot. The composition root: settings, logs, database, model client,
 * tools, then the connection to Discord. No logic lives here. Sharded (SHARD_COUNT), this process
 * is the shard manager, and each shard process it starts runs this file again as one shard.
 */
import { rmSync } from 'node:fs';
import { Status } from 'discord.js';
import { prepareDateFormat } from './agent/system-prompt.ts';
import { describeStatus } from './agent/tool.ts';
import { currentTools } from './agent/tool-registry.ts';
import { botDependencies } from './app/bot-dependencies.ts';
import { type Bot, startBot } from './discord/bot.ts';
import { describeStartFailure } from './discord/discord-errors.ts';
import { UserFacingError } from './agent/errors.ts';
import { healthFilePath, keepHealthFile } from './health/health-file.ts';
import { createLogger } from './app/logging.ts';
import { loadMcpServers, mcpScopeRoot } from './mcp/mcp-servers.ts';
import { whenParentGone } from './shards/parent-process.ts';
import { type Instance, startInstance } from './run-log/instance.ts';
import { runShardManager } from './shards/shard-manager.ts';
import { isSharded, shardDatabasePath, shardListPath, shardsOfThisProcess } from './shards/shard-plan.ts';
import { misplacedServersProblem } from './shards/shard-files.ts';
import { loadConfigOrExit, openStoreOrExit } from './app/startup.ts';
import { startRetentionSweeper } from './app/retention-sweeper.ts';
import { startTelemetry, type Telemetry } from './telemetry/start-telemetry.ts';
import { packagesCodeCache } from './app/packages-script.ts';

/** However shutdown goes, the process is gone this long after the signal. */
const hardExitMs = 10_000;

const config = loadConfigOrExit('bot');
const shard = shardsOfThisProcess();
if (isSharded(config.shards) && shard === null)
  await runShardManager(config, createLogger(config.logLevel, undefined, config.secrets));
const shardId = shard?.ids[0] ?? 0;
const rootLogger = createLogger(config.logLevel, undefined, config.secrets);
const logger = shard ? rootLogger.child({ shard: shardId }) : rootLogger;
const databasePath = shardDatabasePath(config.databasePath, shardId);
if (shard === null) {
  // Shard files beside the database, from a time the bot ran sharded: their servers would go unanswered.
  const misplaced = misplacedServersProblem(config.databasePath, 1, [0]);
  if (misplaced) {
    console.error(misplaced);
    process.exit(1);
  }
  // A list left by a shard manager that stopped without cleaning up would mislead the health check.
  rmSync(shardListPath(config.databasePath), { force: true });
  // discord.js's client reads SHARD_COUNT from the environment (how its ShardingManager tells a shard
  // process), where our setting of that name may sit blank (`docker run --env-file`), which it reads as 0 shards.
  delete process.env.SHARD_COUNT;
}
const store = openStoreOrExit(databasePath);
// A stray rejection is a bug to log, not a reason to drop every conversation in flight.
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));

let instance: Instance;
try {
  instance = startInstance(store, 'bot', { exclusive: true, logger });
} catch (error) {
  console.error(error instanceof UserFacingError ? error.userMessage : error);
  store.close();
  process.exit(1);
}

let bot: Bot | null = null;
let health: { stop(): void } | null = null;
let sweeper: { stop(): void } | null = null;
let telemetry: Telemetry | null = null;
// Made before the signal handlers, so that a signal during start-up stops the servers already starting.
const mcp = await loadMcpServers(config.mcpServers, logger, mcpScopeRoot(databasePath));
let stopping = false;
const shutDown = async (signal: string, exitCode = 0) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  setTimeout(() => {
    logger.error({ afterMs: hardExitMs }, 'shutdown took too long: exiting');
    process.exit(1);
  }, hardExitMs).unref();
  try {
    await bot?.stop();
  } catch (error) {
    logger.error({ err: error }, 'stopping the bot failed');
  }
  // The runs are over: their last spans and the metrics go out while the MCP servers stop.
  await Promise.all([mcp.close(), telemetry?.shutdown()]);
  health?.stop();
  sweeper?.stop();
  instance.stop();
  store.close();
  process.exit(exitCode);
};
process.once('SIGINT', () => void shutDown('SIGINT'));
process.once('SIGTERM', () => void shutDown('SIGTERM'));
// A bot whose starter is gone (npm stopped by a process manager, a shard's manager killed outright)
// stops as on SIGTERM, rather than run on as an orphan holding its database.
whenParentGone(() => void shutDown('parent gone'));

// Servers that fail to start are retried in the background; none of them stops the bot.
await mcp.start();
// Before the bot starts: the runs it resumes at once are exported too. Null (and nothing loaded) with no OTLP endpoint.
telemetry = await startTelemetry(
  { instanceId: instance.id, models: config.models.models.map((entry) => entry.client) },
  logger,
);
const dependencies = await botDependencies(config, {
  store,
  instanceId: instance.id,
  logger,
  toolServers: mcp.connections,
  shard,
  runSinks: telemetry ? [telemetry.sink] : [],
});
try {
  bot = await startBot(dependencies);
} catch (error) {
  console.error(describeStartFailure(error, config.discord.apiUrl));
  await mcp.close();
  instance.stop();
  store.close();
  process.exit(1);
}
const client = bot.client;
health = keepHealthFile(healthFilePath(databasePath), () => client.ws.status === Status.Ready);
sweeper = startRetentionSweeper(store, config.retention, logger);
logger.info(
  {
    tools: currentTools(dependencies.parts.tools, mcp.connections).map((tool) => tool.name),
    mcpServers: mcp.connections.map((server) => `${server.name}: ${describeStatus(server.status())}`),
    model: config.model.model,
    models: config.models.models.map((entry) => entry.name),
    // Whether the packages' compiled code came from the build's cache ("refused"/"none": rebuild as the bot runs).
    codeCache: packagesCodeCache() ?? undefined,
  },
  'ready',
);
// Loaded now, not before ready (a third of the start), so that the first answer does not wait for
// them: the date format of the system prompt (ICU's data) and the token encoding. A message that
// comes meanwhile waits for the encoding (conversation-memory.ts `ready`), as it waited for the start.
prepareDateFormat();
dependencies.parts.counter.load().catch((error: unknown) => {
  logger.fatal({ err: error }, 'the token counter could not be loaded: the install is broken (run npm ci)');
  void shutDown('no token counter', 1);
});
