/**
 * `npm run backup -- --to FILE`: a copy of DATABASE_PATH taken while the bot runs (db/backup.ts
 * says how it stays consistent). With shards, one file per shard database on this host, named as
 * the shards' own are (`FILE` for shard 0, `FILE`'s `.shard-N` beside it: src/shards/shard-plan.ts).
 * A file that exists is never replaced.
 *
 * Every refusal is one line on stderr and exit code 1; a backup exits 0 and says what it holds.
 */
import { existsSync } from 'node:fs';
import { backUpDatabase, BackupRefusedError } from '../db/backup.ts';
import { databasePathSetting } from './settings/config.ts';
import { shardFiles } from './shards/shard-files.ts';
import { shardDatabasePath } from './shards/shard-plan.ts';
import { runTerminalCommand } from './terminal/terminal-command.ts';

const usage = [
  'usage: npm run backup -- --to FILE',
  '  Copies the database at DATABASE_PATH (and each shard database beside it) while the bot runs.',
  '  FILE must not exist; shard N goes to FILE with .shard-N before its extension.',
].join('\n');

async function backUp(to: string): Promise<string[]> {
  const databasePath = databasePathSetting();
  const files = shardFiles(databasePath);
  if (files.length === 0)
    throw new BackupRefusedError(`There is no database at ${databasePath} (DATABASE_PATH): nothing to back up.`);
  const copies = files.map((file) => ({ ...file, target: shardDatabasePath(to, file.shard) }));
  const taken = copies.find((copy) => existsSync(copy.target));
  if (taken)
    throw new BackupRefusedError(
      `${taken.target} exists already: a backup never replaces a file. Choose another name.`,
    );
  const out: string[] = [];
  for (const copy of copies) {
    const summary = await backUpDatabase(copy.path, copy.target);
    out.push(
      `Backed up ${copy.path} to ${copy.target}: schema version ${summary.version}, ${summary.conversations} conversations, ${summary.messages} messages.`,
    );
  }
  return out;
}

process.exitCode = await runTerminalCommand(
  {
    name: 'backup',
    usage,
    options: { to: { type: 'string' } },
    run({ to }) {
      if (!to?.trim()) throw new BackupRefusedError('Missing --to FILE: where to write the backup.');
      return backUp(to);
    },
  },
  process.argv.slice(2),
);
