/**
 * `npm run health`: exits 0 if the bot using DATABASE_PATH is healthy by its own account (it wrote
 * its health file within the last 15 s, and its Discord connection is up or has been down for less
 * than two minutes), else 1; prints why in one line. Sharded, every shard of this host (as its shard
 * manager listed them) must be healthy, and each is named. The container's HEALTHCHECK runs it.
 */
import { healthFilePath, judgeShards, readHealthFile, readShardList } from './health/health-file.ts';
import { databasePathSetting } from './settings/config.ts';
import { shardDatabasePath, shardListPath } from './shards/shard-plan.ts';

const databasePath = databasePathSetting();
const shards = readShardList(shardListPath(databasePath));
const files = (shards?.ids ?? [0]).map((id) => ({ id, path: healthFilePath(shardDatabasePath(databasePath, id)) }));
const verdict = judgeShards(
  files.map(({ id, path }) => ({ shard: shards ? id : null, state: readHealthFile(path) })),
  Date.now(),
);
// The files read are named: a wrong DATABASE_PATH (another folder, a relative path from elsewhere) shows at once.
console.log(
  `${verdict.healthy ? 'healthy' : 'unhealthy'}: ${verdict.why} (read ${files.map(({ path }) => path).join(', ')})`,
);
process.exit(verdict.healthy ? 0 : 1);
