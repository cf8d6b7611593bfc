/**
 * The shard databases on this host, and the servers in them that their shard does not serve: after
 * the shard count changes (or SHARD_COUNT=auto gets another recommendation), a server's events go to
 * another shard, and its conversations would wait unanswered in the old shard's file. Such a start is
 * refused until `npm run reshard` has moved them: a shard that served meanwhile would write the
 * server's new conversations into its new shard's file, and the two could no longer be joined.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { serversIn } from '../../db/move-server.ts';
import { openStore } from '../../db/store.ts';
import { UserFacingError } from '../agent/errors.ts';
import { shardDatabasePath, shardOf } from './shard-plan.ts';

/** The shard databases of `databasePath` on this host: shard 0's (the path itself) and each `…shard-N…` beside it. */
export function shardFiles(databasePath: string): { shard: number; path: string }[] {
  const folder = dirname(databasePath);
  const files = existsSync(databasePath) ? [{ shard: 0, path: databasePath }] : [];
  if (!existsSync(folder)) return files;
  for (const name of readdirSync(folder)) {
    const shard = /\.shard-(\d+)(?:\.|$)/.exec(name)?.[1];
    if (shard !== undefined && basename(shardDatabasePath(databasePath, Number(shard))) === name)
      files.push({ shard: Number(shard), path: join(folder, name) });
  }
  return files.sort((a, b) => a.shard - b.shard);
}

/**
 * Why this host cannot start its shards `ids` of `count` with the databases it has, or null: a file
 * of one of its shards holding another shard's servers, or a file of a shard that no longer exists
 * (numbered `count` or above) holding any.
 */
export function misplacedServersProblem(databasePath: string, count: number, ids: readonly number[]): string | null {
  const problems: string[] = [];
  for (const file of shardFiles(databasePath)) {
    if (file.shard < count && !ids.includes(file.shard)) continue; // another host's shard, left here
    if (count === 1 && file.shard === 0) continue; // every server is shard 0's
    let strays: string[];
    try {
      const store = openStore(file.path, { readOnly: true });
      strays = serversIn(store.db).filter((server) => shardOf(server, count) !== file.shard);
      store.close();
    } catch (error) {
      problems.push(
        `${file.path} cannot be read (${error instanceof UserFacingError ? error.userMessage : String(error)})`,
      );
      continue;
    }
    if (strays.length === 0) continue;
    const examples = strays
      .slice(0, 3)
      .map((server) => `${server} → shard ${shardOf(server, count)}`)
      .join(', ');
    problems.push(
      `${file.path} holds ${strays.length} server(s) of other shards (${examples}${strays.length > 3 ? ', …' : ''})`,
    );
  }
  if (problems.length === 0) return null;
  return `Cannot start: with ${count} shard(s), ${problems.join('; ')}. Their conversations would go unanswered. Stop every shard of the bot, run npm run reshard -- --shard-count ${count} to move them to their shards' databases, then start again (docs/scaling.md).`;
}
