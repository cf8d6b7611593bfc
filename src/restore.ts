/**
 * `npm run restore -- --from FILE`: puts a backup of `npm run backup` back at DATABASE_PATH (and
 * each shard's backup, `FILE`'s `.shard-N` beside it, at its shard's database). The bot must be
 * stopped: the restore holds each database alone (a `restore` instance, src/run-log/instance.ts)
 * and is refused while anything else uses it. Each backup is checked first (sound, a bot database,
 * not from a newer version); nothing is written unless all are fine and all targets are held.
 *
 * A forget made after the backup was taken (its journal beside the database: db/forget-journal.ts)
 * is applied again to what was restored, and said: a member who asked to be forgotten stays so.
 *
 * Every refusal is one line on stderr and exit code 1; a restore exits 0 and says what it restored.
 */
import {
  applyForgetsAgain,
  BackupRefusedError,
  checkBackup,
  type ForgetAppliedAgain,
  holdForRestore,
  restoreInto,
} from '../db/backup.ts';
import { directMessagesServerId } from '../db/conversations.ts';
import { databasePathSetting } from './settings/config.ts';
import { shardFiles } from './shards/shard-files.ts';
import { shardDatabasePath } from './shards/shard-plan.ts';
import { countOf, countsInWords } from './text/count.ts';
import { runTerminalCommand } from './terminal/terminal-command.ts';

const usage = [
  'usage: npm run restore -- --from FILE',
  '  Replaces the database at DATABASE_PATH with the backup FILE (and each shard database with its',
  '  backup beside FILE). Stop the bot first.',
].join('\n');

/** A forget made after the backup, applied again: said, so the operator knows the restore kept it. */
function describeForgetAgain({ record, counts }: ForgetAppliedAgain): string {
  const where =
    record.guild_id === directMessagesServerId
      ? 'direct messages'
      : record.guild_id === 'terminal'
        ? 'terminal conversations'
        : `server ${record.guild_id}`;
  return `Forgotten again (the backup is older than the forget of ${new Date(record.forgotten_at).toISOString()}): user ${record.user_id} in ${where}: ${countsInWords(counts)}.`;
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
      const again = applyForgetsAgain(plan.target);
      out.push(
        `Restored ${plan.target} from ${plan.path}: schema version ${plan.summary.version}, ${plan.summary.conversations} conversations, ${plan.summary.messages} messages.`,
        ...again.forgets
          .filter(({ counts }) => Object.values(counts).some((count) => count > 0))
          .map(describeForgetAgain),
        ...(again.facts > 0
          ? [
              `Forgotten again (the backup is older than members' /memory forget): ${countOf(again.facts, 'remembered fact')}.`,
            ]
          : []),
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

process.exitCode = await runTerminalCommand(
  {
    name: 'restore',
    usage,
    options: { from: { type: 'string' } },
    run({ from }) {
      if (!from?.trim()) throw new BackupRefusedError('Missing --from FILE: the backup to restore.');
      return restore(from);
    },
  },
  process.argv.slice(2),
);
