/**
 * One server's move between two bot databases, as `npm run move-server` and `npm run reshard` run
 * it: the plan (db/move-server.ts), the databases held (move-server-databases.ts), what to tell.
 */
import { existsSync, rmSync } from 'node:fs';
import {
  copyServer,
  deleteServer,
  type MovePlan,
  planMove,
  runningRunsOf,
  schemaProblem,
} from '../../db/move-server.ts';
import type { Store } from '../../db/store.ts';
import { describeError } from '../agent/errors.ts';
import type { Instance } from '../run-log/instance.ts';
import { holdAlone, MoveRefusedError, openForMove, refuseIfInUse } from '../../db/move-server-databases.ts';

/** Which server, from which database to which; `dryRun`: say what would move, change nothing. */
export interface MoveOptions {
  server: string;
  from: string;
  to: string;
  dryRun: boolean;
}

const countsTable = (counts: Record<string, number>) =>
  Object.entries(counts).map(([table, count]) => `  ${table.padEnd(18)} ${count}`);

const inWords = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([table, count]) => `${count} ${table}`)
    .join(', ');

/** What to say and do for a plan that has nothing to copy; null when there is a copy to make. */
function without(plan: MovePlan, options: MoveOptions): { code: number; out: string[] } | null {
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

function dryRun(source: Store, target: Store, options: MoveOptions): { code: number; out: string[] } {
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

function move(source: Store, target: Store, options: MoveOptions): { code: number; out: string[] } {
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

/**
 * Moves one server's data (or says what would move, `dryRun`): both databases checked, opened and
 * held for the move's length, then closed. Throws `MoveRefusedError` with one line for the operator;
 * a target it created is removed again when nothing was moved into it.
 */
export function runMove(options: MoveOptions): { code: number; out: string[] } {
  const stores: Store[] = [];
  let held: Instance[] = [];
  let created: string | null = null;
  let code = 1;
  try {
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
    code = result.code;
    return result;
  } finally {
    for (const instance of held) instance.stop();
    for (const store of stores) store.close();
    if (created !== null && code !== 0)
      for (const file of [created, `${created}-wal`, `${created}-shm`]) rmSync(file, { force: true });
  }
}
