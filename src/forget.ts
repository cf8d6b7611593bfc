/**
 * `npm run forget -- --user ID [--confirm]`: `/forget-me` for the operator (a request by e-mail, a
 * member who left), in every Discord server and the direct messages of every shard database on this
 * host; `--terminal NAME` does the same for what NAME wrote in `npm run chat`. Without
 * --confirm it says what would be deleted; with it, deletes (db/forget-member.ts says what, and
 * how the words leave the file). The bot may run meanwhile: each server's forget is one write
 * transaction. Threads the bot named after the member's words keep their name on Discord (this
 * command has no Discord connection): /forget-me renames them.
 *
 * Every refusal is one line on stderr and exit code 1.
 */
import { countForget, type ForgetCounts, forgetMember } from '../db/forget-member.ts';
import { serversIn } from '../db/move-server.ts';
import { openStore } from '../db/store.ts';
import { userInstallServerId } from '../db/conversations.ts';
import { UserFacingError } from './agent/errors.ts';
import { databasePathSetting } from './settings/config.ts';
import { shardFiles } from './shards/shard-files.ts';
import { countsInWords } from './text/count.ts';
import { runTerminalCommand } from './terminal/terminal-command.ts';

const usage = [
  'usage: npm run forget -- --user ID [--confirm]',
  '       npm run forget -- --terminal NAME [--confirm]',
  "  Deletes a Discord user's messages, their images, the runs they started and their reminders, in every",
  '  server and in direct messages, in DATABASE_PATH (and its shard databases); with --terminal, what the',
  '  user NAME wrote in `npm run chat` (its conversations). Without --confirm: says what, and deletes nothing.',
].join('\n');

/** Whose words: a Discord user's id, or the terminal user's (`terminal:NAME`, as src/chat.ts writes it). */
function whoseWords({ user, terminal }: { user?: string; terminal?: string }): string {
  if (terminal === undefined && user === undefined)
    throw new UserFacingError(
      'forget-usage',
      'Whose data? Give --user ID (a Discord user id) or --terminal NAME. npm run forget -- --help says how to use it.',
    );
  if (terminal !== undefined && user !== undefined)
    throw new UserFacingError('forget-usage', 'Give --user or --terminal, not both.');
  if (terminal !== undefined) {
    if (!terminal.trim()) throw new UserFacingError('forget-usage', '--terminal needs the name of the terminal user.');
    return `terminal:${terminal.trim()}`;
  }
  const id = user?.trim() ?? '';
  // Discord ids are snowflakes: 17 to 20 digits (https://discord.com/developers/docs/reference#snowflakes).
  if (!/^\d{17,20}$/.test(id))
    throw new UserFacingError('forget-usage', `--user must be a Discord user id, 17 to 20 digits (it is "${id}").`);
  return id;
}

function forget(user: string, confirm: boolean): string[] {
  const databasePath = databasePathSetting();
  const files = shardFiles(databasePath);
  if (files.length === 0)
    throw new UserFacingError('forget-no-database', `There is no database at ${databasePath} (DATABASE_PATH).`);
  const atTerminal = user.startsWith('terminal:');
  const out: string[] = [];
  for (const file of files) {
    const store = openStore(file.path);
    try {
      // Every server, then what no server holds: the use through the person's own install where no
      // server added the bot (USER_INSTALL), and (null) the direct messages (ALLOW_DMS), or the terminal's.
      for (const server of atTerminal ? [null] : [...serversIn(store.db), userInstallServerId, null]) {
        // Most bots keep no user-installed use: no forget is recorded there for nothing.
        if (server === userInstallServerId && !hasAny(countForget(store.db, server, user))) continue;
        const counts = confirm ? forgetMember(store.db, server, user).counts : countForget(store.db, server, user);
        const where =
          server === userInstallServerId
            ? 'user-installed use'
            : server !== null
              ? `server ${server}`
              : atTerminal
                ? 'terminal conversations'
                : 'direct messages';
        if (hasAny(counts))
          out.push(`${confirm ? 'Deleted' : 'Would delete'} in ${where} (${file.path}): ${countsInWords(counts)}.`);
      }
    } finally {
      store.close();
    }
  }
  if (out.length === 0) return [`Nothing of user ${user} is kept: nothing to delete.`];
  return confirm ? out : [...out, 'Nothing was deleted: add --confirm to delete it.'];
}

process.exitCode = await runTerminalCommand(
  {
    name: 'forget',
    usage,
    options: { user: { type: 'string' }, terminal: { type: 'string' }, confirm: { type: 'boolean', default: false } },
    run: (values) => forget(whoseWords(values), values.confirm === true),
  },
  process.argv.slice(2),
);

function hasAny(counts: ForgetCounts): boolean {
  return Object.values(counts).some((count) => count > 0);
}
