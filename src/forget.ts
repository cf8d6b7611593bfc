/**
 * `npm run forget -- --user ID [--confirm]`: `/forget-me` for the operator (a request by e-mail, a
 * member who left), in every Discord server of every shard database on this host: without
 * --confirm it says what would be deleted; with it, deletes (db/forget-member.ts says what, and
 * how the words leave the file). The bot may run meanwhile: each server's forget is one write
 * transaction. Threads the bot named after the member's words keep their name on Discord (this
 * command has no Discord connection): /forget-me renames them.
 *
 * Every refusal is one line on stderr and exit code 1.
 */
import { parseArgs } from 'node:util';
import { countForget, type ForgetCounts, forgetMember } from '../db/forget-member.ts';
import { serversIn } from '../db/move-server.ts';
import { openStore } from '../db/store.ts';
import { UserFacingError } from './agent/errors.ts';
import { databasePathSetting } from './app/config.ts';
import { shardFiles } from './shards/shard-files.ts';

const usage = [
  'usage: npm run forget -- --user ID [--confirm]',
  "  Deletes a Discord user's messages, their images, the runs they started and their reminders, in every",
  '  server and in direct messages, in DATABASE_PATH (and its shard databases). Without --confirm: says what,',
  '  and deletes nothing.',
].join('\n');

const inWords = (counts: ForgetCounts) =>
  Object.entries(counts)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');

function readOptions(args: string[]): { user: string; confirm: boolean } | null {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { user: { type: 'string' }, confirm: { type: 'boolean', default: false }, help: { type: 'boolean' } },
    }));
  } catch (error) {
    throw new UserFacingError(
      'forget-usage',
      `${(error as Error).message.split('\n')[0]} npm run forget -- --help says how to use it.`,
    );
  }
  if (values.help) return null;
  const user = values.user?.trim() ?? '';
  // Discord ids are snowflakes: 17 to 20 digits (https://discord.com/developers/docs/reference#snowflakes).
  if (!/^\d{17,20}$/.test(user))
    throw new UserFacingError('forget-usage', `--user must be a Discord user id, 17 to 20 digits (it is "${user}").`);
  return { user, confirm: values.confirm };
}

function forget(user: string, confirm: boolean): string[] {
  const databasePath = databasePathSetting();
  const files = shardFiles(databasePath);
  if (files.length === 0)
    throw new UserFacingError('forget-no-database', `There is no database at ${databasePath} (DATABASE_PATH).`);
  const out: string[] = [];
  for (const file of files) {
    const store = openStore(file.path);
    try {
      // Every server, then the direct messages (null: no server; ALLOW_DMS).
      for (const server of [...serversIn(store.db), null]) {
        const counts = confirm ? forgetMember(store.db, server, user).counts : countForget(store.db, server, user);
        const where = server === null ? 'direct messages' : `server ${server}`;
        if (Object.values(counts).some((count) => count > 0))
          out.push(`${confirm ? 'Deleted' : 'Would delete'} in ${where} (${file.path}): ${inWords(counts)}.`);
      }
    } finally {
      store.close();
    }
  }
  if (out.length === 0) return [`Nothing of user ${user} is kept: nothing to delete.`];
  return confirm ? out : [...out, 'Nothing was deleted: add --confirm to delete it.'];
}

function main(args: string[]): number {
  try {
    const options = readOptions(args);
    if (options === null) {
      console.log(usage);
      return 0;
    }
    console.log(forget(options.user, options.confirm).join('\n'));
    return 0;
  } catch (error) {
    if (!(error instanceof UserFacingError)) throw error;
    console.error(error.userMessage);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
