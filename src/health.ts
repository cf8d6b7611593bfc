/**
 * `npm run health`: exits 0 if the bot using DATABASE_PATH is healthy by its own account (it wrote
 * its health file within the last 15 s, and its Discord connection is up or has been down for less
 * than two minutes), else 1; prints why in one line. The container's HEALTHCHECK runs it.
 */
import { healthFilePath, judgeHealth, readHealthFile } from './health/health-file.ts';
import { databasePathSetting } from './config.ts';

const verdict = judgeHealth(readHealthFile(healthFilePath(databasePathSetting())), Date.now());
console.log(`${verdict.healthy ? 'healthy' : 'unhealthy'}: ${verdict.why}`);
process.exit(verdict.healthy ? 0 : 1);
