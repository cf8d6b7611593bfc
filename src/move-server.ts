/**
 * `npm run move-server -- --server ID --from DATABASE --to DATABASE [--dry-run]`: moves one Discord
 * server's data (its conversations with their messages, runs and steps, its reminders, channel
 * cursors and daily token counts) from one bot database to another, as when shards change hosts or
 * their number changes. The composition root: the options, the two databases held
 * (terminal/move-server-databases.ts), and the move itself in db/move-server.ts.
 *
 * Every refusal is one line on stderr and exit code 1; a move, or a move found done, exits 0.
 */
import { existsSync, realpathSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { copyServer, deleteServer, type MovePlan, planMove, runningRunsOf, schemaProblem } from '../db/move-server.ts';
import type { Store } from '../db/store.ts';
import { describeError } from './errors.ts';
import type { Instance } from './run-log/instance.ts';
import { holdAlone, MoveRefusedError, openForMove, refuseIfInUse } from './terminal/move-server-databases.ts';

const usage = [
  'usage: npm run move-server -- --server ID --from DATABASE --to DATABASE [--dry-run]',
  '  Moves the data of one Discord server (ID: its 17 to 20 digit id) from one bot database to another.',
  '  No bot or chat may be running on either; none can start on them until the move ends.',
  '  --dry-run  says what would move, and changes nothing',
].join('\n');
const seeUsage = 'npm run move-server -- --help says how to use it.';

interface Options {
  server: string;
  from: string;
  to: string;
  dryRun: boolean;
}

/** The options, or null after --help; a `MoveRefusedError` for anything wrong with them. */
function readOptions(args: string[]): Options | null {
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

const countsTable = (counts: Record<string, number>) =>
  Object.entries(counts).map(([table, count]) => `  ${table.padEnd(18)} ${count}`);

const inWords = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([table, count]) => `${count} ${table}`)
    .join(', ');

/** What to say and do for a plan that has nothing to copy; null when there is a copy to make. */
function without(plan: MovePlan, options: Options): { code: number; out: string[] } | null {
  const { server, from, to } = options;
  switch (plan.state) {
    case 'absent':
      throw new MoveRefusedError(`Neither ${from} nor ${to} holds any data of server ${server}: nothing to move.`);
    case 'moved':
      return {
        code: 0,
        out: [`Server ${server}'s data is in ${to} already, and none is left in ${from}: nothing to do.`],
      };
    case 'conflict':
      throw new MoveRefusedError(
        `${to} already holds other data of server ${server} (${inWords(plan.target.counts)}) than ${from} (${inWords(plan.source.counts)}): nothing was changed.`,
      );
    case 'copied':
    case 'to-copy':
      return null;
  }
}

function dryRun(source: Store, target: Store, options: Options): { code: number; out: string[] } {
  const plan = planMove(source.db, target.db, options.server);
  const done = without(plan, options);
  if (done) return done;
  const out =
    plan.state === 'copied'
      ? [
          `Would delete server ${options.server}'s data from ${options.from}: its copy in ${options.to} is complete (a move cut off after its copy).`,
        ]
      : [
          `Would move server ${options.server} from ${options.from} to ${options.to}:`,
          ...countsTable(plan.source.counts),
        ];
  const running = runningRunsOf(source.db, options.server);
  if (running > 0 && plan.state === 'to-copy')
    out.push(
      `${running} of its runs are marked running by a process that is gone: they would be marked interrupted, as the bot's next start would, and the bot on ${options.to} would take them up.`,
    );
  out.push('Nothing was changed (--dry-run).');
  return { code: 0, out };
}

function move(source: Store, target: Store, options: Options): { code: number; out: string[] } {
  const { server, from, to } = options;
  const plan = planMove(source.db, target.db, server);
  const done = without(plan, options);
  if (done) return done;
  const out: string[] = [];
  if (plan.state === 'to-copy') {
    let copied;
    try {
      copied = copyServer(source.db, target.db, server);
    } catch (error) {
      throw new MoveRefusedError(`Copying into ${to} failed, and nothing was moved: ${describeError(error)}`);
    }
    out.push(`Moved server ${server} from ${from} to ${to}:`, ...countsTable(copied.counts));
    if (copied.instances > 0)
      out.push(`  (instances: ${copied.instances} rows of the processes that ran the moved runs, copied as stopped)`);
  } else {
    out.push(
      `The copy of server ${server} in ${to} was complete (a move cut off after its copy): deleting it from ${from}.`,
      ...countsTable(plan.source.counts),
    );
  }
  try {
    deleteServer(source.db, server);
  } catch (error) {
    throw new MoveRefusedError(
      `Server ${server}'s data is copied into ${to}, but deleting it from ${from} failed: ${describeError(error)}. Run the same command again to finish.`,
    );
  }
  return { code: 0, out };
}

function main(args: string[]): number {
  const stores: Store[] = [];
  let held: Instance[] = [];
  // A target this run created is removed again if nothing was moved into it.
  let created: string | null = null;
  let code = 1;
  try {
    const options = readOptions(args);
    if (options === null) {
      console.log(usage);
      return 0;
    }
    const { from, to } = options;
    refuseIfInUse(from);
    refuseIfInUse(to);
    const source = openForMove(from, { readOnly: options.dryRun });
    stores.push(source);
    if (!options.dryRun && !existsSync(to)) created = to;
    const target = openForMove(to, { readOnly: options.dryRun });
    stores.push(target);
    for (const [path, store] of [
      [from, source],
      [to, target],
    ] as const) {
      const problem = schemaProblem(store.db);
      if (problem)
        throw new MoveRefusedError(`Cannot move a server's data in ${path}: ${problem}. Nothing was changed.`);
    }
    let result;
    if (options.dryRun) result = dryRun(source, target, options);
    else {
      // Holding the source marks runs left running by a process that is gone interrupted, as any
      // start does: the target's bot takes them up at its start (src/conversation/run-lifecycle.ts).
      const running = runningRunsOf(source.db, options.server);
      held = holdAlone([
        { path: from, store: source },
        { path: to, store: target },
      ]);
      const interrupted = running - runningRunsOf(source.db, options.server);
      result = move(source, target, options);
      if (interrupted > 0)
        result.out.push(
          `${interrupted} of its runs were marked running by a process that is gone: now interrupted, for the bot on ${to} to take up at its start.`,
        );
    }
    console.log(result.out.join('\n'));
    code = result.code;
    return code;
  } catch (error) {
    if (!(error instanceof MoveRefusedError)) throw error;
    console.error(error.userMessage);
    return 1;
  } finally {
    for (const instance of held) instance.stop();
    for (const store of stores) store.close();
    if (created !== null && code !== 0)
      for (const file of [created, `${created}-wal`, `${created}-shm`]) rmSync(file, { force: true });
  }
}

process.exitCode = main(process.argv.slice(2));
