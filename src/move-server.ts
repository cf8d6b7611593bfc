/**
 * `npm run move-server -- --server ID --from DATABASE --to DATABASE [--dry-run]`: moves one Discord
 * server's data (its conversations with their messages, runs and steps, its reminders, channel
 * cursors and daily token counts) from one bot database to another, as when shards change hosts or
 * their number changes. The composition root: the options, the two databases held
 * (terminal/move-server-databases.ts), and the move itself in db/move-server.ts.
 *
 * Every refusal is one line on stderr and exit code 1; a move, or a move found done, exits 0.
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MoveRefusedError } from '../db/move-server-databases.ts';
import { type MoveOptions, runMove } from './terminal/move-server-run.ts';

const usage = [
  'usage: npm run move-server -- --server ID --from DATABASE --to DATABASE [--dry-run]',
  '  Moves the data of one Discord server (ID: its 17 to 20 digit id) from one bot database to another.',
  '  No bot or chat may be running on either; none can start on them until the move ends.',
  '  --dry-run  says what would move, and changes nothing',
].join('\n');
const seeUsage = 'npm run move-server -- --help says how to use it.';

/** The options, or null after --help; a `MoveRefusedError` for anything wrong with them. */
function readOptions(args: string[]): MoveOptions | null {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        server: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new MoveRefusedError(`${(error as Error).message.split('\n')[0]} ${seeUsage}`);
  }
  if (values.help) return null;
  const missing = (['server', 'from', 'to'] as const).filter((name) => !values[name]?.trim());
  if (missing.length > 0)
    throw new MoveRefusedError(`Missing ${missing.map((name) => `--${name}`).join(', ')}. ${seeUsage}`);
  const server = values.server!.trim();
  // Discord ids are snowflakes: 17 to 20 digits (https://discord.com/developers/docs/reference#snowflakes).
  if (!/^\d{17,20}$/.test(server))
    throw new MoveRefusedError(`--server must be a Discord server id, 17 to 20 digits (it is "${server}").`);
  const from = values.from!;
  const to = values.to!;
  if (!existsSync(from)) throw new MoveRefusedError(`There is no database at ${from} (--from): nothing to move.`);
  // The same file by another name (a link, a relative path) would be copied into itself, then deleted.
  const real = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));
  if (real(from) === real(to)) throw new MoveRefusedError(`--from and --to are the same database (${real(from)}).`);
  return { server, from, to, dryRun: values['dry-run'] };
}

function main(args: string[]): number {
  try {
    const options = readOptions(args);
    if (options === null) {
      console.log(usage);
      return 0;
    }
    const result = runMove(options);
    console.log(result.out.join('\n'));
    return result.code;
  } catch (error) {
    if (!(error instanceof MoveRefusedError)) throw error;
    console.error(error.userMessage);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
