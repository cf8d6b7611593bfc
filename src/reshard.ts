/**
 * `npm run reshard -- --shard-count N [--dry-run]`: after the shard count changes, moves every server
 * whose shard changed into its new shard's database (src/shards/shard-plan.ts says which file is whose),
 * one `npm run move-server` move each. Reads the shard files of DATABASE_PATH on this host; no bot may
 * run on them. A reshard cut off is finished by running it again (each move is).
 *
 * Every refusal is one line on stderr and exit code 1.
 */
import { parseArgs } from 'node:util';
import { serversIn } from '../db/move-server.ts';
import { databasePathSetting } from './settings/config.ts';
import { shardFiles } from './shards/shard-files.ts';
import { shardDatabasePath, shardOf } from './shards/shard-plan.ts';
import { MoveRefusedError, openForMove } from '../db/move-server-databases.ts';
import { runMove } from './terminal/move-server-run.ts';

const usage = [
  'usage: npm run reshard -- --shard-count N [--dry-run]',
  "  Moves each server in DATABASE_PATH's shard databases into the database of its shard under N shards.",
  '  Stop the bot first. --dry-run says what would move, and changes nothing.',
].join('\n');

function main(args: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        'shard-count': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message.split('\n')[0]} npm run reshard -- --help says how to use it.`);
    return 1;
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const count = Number(values['shard-count']);
  if (!/^\d+$/.test(values['shard-count'] ?? '') || count < 1) {
    console.error('--shard-count must be the new number of shards, a whole number from 1.');
    return 1;
  }
  const databasePath = databasePathSetting();
  const files = shardFiles(databasePath);
  if (files.length === 0) {
    console.error(`There is no database at ${databasePath} (DATABASE_PATH), nor a shard's beside it: nothing to move.`);
    return 1;
  }
  const dryRun = values['dry-run'];
  let moved = 0;
  try {
    for (const file of files) {
      const store = openForMove(file.path, { readOnly: true });
      const servers = serversIn(store.db);
      store.close();
      for (const server of servers) {
        const shard = shardOf(server, count);
        if (shard === file.shard) continue;
        const result = runMove({ server, from: file.path, to: shardDatabasePath(databasePath, shard), dryRun });
        console.log(result.out.join('\n'));
        moved++;
      }
    }
  } catch (error) {
    if (!(error instanceof MoveRefusedError)) throw error;
    console.error(error.userMessage);
    if (moved > 0) console.error(`${moved} server(s) were moved before this; run the same command again to go on.`);
    return 1;
  }
  const emptied = files.filter((file) => file.shard >= count).map((file) => file.path);
  console.log(
    [
      `${moved === 0 ? 'Every server is in its shard’s database already' : `${dryRun ? 'Would move' : 'Moved'} ${moved} server(s)`} for SHARD_COUNT=${count}.`,
      ...(emptied.length > 0 && !dryRun
        ? [`No shard uses ${emptied.join(', ')} now: delete once the bot runs well.`]
        : []),
      ...(dryRun ? ['Nothing was changed (--dry-run).'] : [`Set SHARD_COUNT=${count} and start the bot.`]),
    ].join('\n'),
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));
