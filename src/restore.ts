/**
 * `npm run restore -- --from FILE`: puts a backup of `npm run backup` back at DATABASE_PATH (and
 * each shard's backup, `FILE`'s `.shard-N` beside it, at its shard's database). The bot must be
 * stopped: the restore holds each database alone (a `restore` instance, src/run-log/instance.ts)
 * and is refused while anything else uses it. Each backup is checked first (sound, a bot database,
 * not from a newer version); nothing is written unless all are fine and all targets are held.
 *
 * Every refusal is one line on stderr and exit code 1; a restore exits 0 and says what it restored.
 */
import { parseArgs } from 'node:util';
import { BackupRefusedError, checkBackup, holdForRestore, restoreInto } from '../db/backup.ts';
import { databasePathSetting } from './app/config.ts';
import { shardFiles } from './shards/shard-files.ts';
import { shardDatabasePath } from './shards/shard-plan.ts';

const usage = [
  'usage: npm run restore -- --from FILE',
  '  Replaces the database at DATABASE_PATH with the backup FILE (and each shard database with its',
  '  backup beside FILE). Stop the bot first.',
].join('\n');

function readSource(args: string[]): string | null {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { from: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    throw new BackupRefusedError(
      `${(error as Error).message.split('\n')[0]} npm run restore -- --help says how to use it.`,
    );
  }
  if (values.help) return null;
  if (!values.from?.trim()) throw new BackupRefusedError('Missing --from FILE: the backup to restore.');
  return values.from;
}

async function restore(from: string): Promise<string[]> {
  const databasePath = databasePathSetting();
  const backups = shardFiles(from);
  if (backups.length === 0) throw new BackupRefusedError(`There is no backup at ${from}. Nothing was restored.`);
  const plans = backups.map((backup) => ({
    ...backup,
    summary: checkBackup(backup.path),
    target: shardDatabasePath(databasePath, backup.shard),
  }));
  const held: ReturnType<typeof holdForRestore>[] = [];
  const out: string[] = [];
  try {
    for (const plan of plans) held.push(holdForRestore(plan.target));
    for (const [index, plan] of plans.entries()) {
      await restoreInto(plan.path, held[index]!);
      out.push(
        `Restored ${plan.target} from ${plan.path}: schema version ${plan.summary.version}, ${plan.summary.conversations} conversations, ${plan.summary.messages} messages.`,
      );
    }
  } finally {
    for (const { store, instance } of held) {
      instance.stop();
      store.close();
    }
  }
  return out;
}

async function main(args: string[]): Promise<number> {
  try {
    const from = readSource(args);
    if (from === null) {
      console.log(usage);
      return 0;
    }
    console.log((await restore(from)).join('\n'));
    return 0;
  } catch (error) {
    if (!(error instanceof BackupRefusedError)) throw error;
    console.error(error.userMessage);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
