/**
 * `npm run steps [-- --thread NAME] [--last N] [--run ID] [--json]`: the run log and step log from
 * the database, for moderators and operators, or as JSON for machines. The composition root: it
 * finds the database, reads it, and hands the rows to the pure report in `terminal/steps-report.ts`.
 *
 * It only reads. It registers no instance (starting one would mark the runs of instances it thinks
 * gone as interrupted), so it is safe beside a running bot: WAL lets a reader in while the bot writes.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ConversationRow } from '../db/conversations.ts';
import type { RunRow } from '../db/runs.ts';
import { openStore, type Store } from '../db/store.ts';
import { UserFacingError } from './agent/errors.ts';
import { databasePathSetting } from './settings/config.ts';
import { describeChange } from './place-settings/describe-settings.ts';
import { formatRunDetail, formatRunsTable, type RunReport, runsToJson } from './terminal/steps-report.ts';

const usage = [
  'usage: npm run steps -- [--thread NAME] [--last N] [--json]   the latest runs (10 unless --last), newest first',
  '       npm run steps -- --run ID [--json]                      one run and its steps (ID: the full id or a unique prefix)',
  '       npm run steps -- --settings [--last N] [--json]         who changed which setting (/settings, /model), where and when, newest first',
  '  --thread NAME  a conversation key (discord:<thread id>, terminal:<name>) or title (a Discord thread name, or npm run chat --thread NAME)',
].join('\n');

interface Options {
  settings: boolean;
  thread: string | null;
  run: string | null;
  last: number;
  json: boolean;
}

/** The options, or the exit code when there is nothing more to do (help, or a usage error). */
function readOptions(args: string[]): Options | number {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        thread: { type: 'string' },
        run: { type: 'string' },
        settings: { type: 'boolean', default: false },
        last: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const fail = (problem: string) => {
    console.error(`${problem}\n${usage}`);
    return 2;
  };
  if (values.last !== undefined && !/^[1-9]\d{0,5}$/.test(values.last))
    return fail(`--last must be a whole number of runs from 1 (it is "${values.last}")`);
  if (values.run !== undefined && (values.thread !== undefined || values.last !== undefined))
    return fail('--run shows one run: it does not combine with --thread or --last');
  if (values.settings && (values.run !== undefined || values.thread !== undefined))
    return fail('--settings lists the changes of settings: it does not combine with --run or --thread');
  if (values.run !== undefined && values.run.trim() === '') return fail('--run needs a run id or the start of one');
  return {
    settings: values.settings,
    thread: values.thread ?? null,
    run: values.run?.trim() ?? null,
    last: Number(values.last ?? 10),
    json: values.json,
  };
}

/** The run with this id, or the one run whose id starts with it. */
function findRun(store: Store, id: string): RunRow | undefined {
  const exact = store.runs.byId(id);
  if (exact) return exact;
  const matches = store.runs.byPrefix(id);
  return matches.length === 1 ? matches[0] : undefined;
}

function report(store: Store, options: Options): { code: number; out: string[] } {
  const conversations = new Map<number, ConversationRow | undefined>();
  const conversationOf = (id: number) => {
    if (!conversations.has(id)) conversations.set(id, store.conversations.byId(id));
    const row = conversations.get(id);
    return row ? { id: row.id, key: row.key, title: row.title } : null;
  };
  const toReport = (run: RunRow): RunReport => ({
    run,
    conversation: conversationOf(run.conversation_id),
    steps: store.steps.ofRun(run.id),
    contentFlags: store.contentFlags.ofRun(run.id),
  });

  if (options.settings) {
    const changes = store.placeSettings.recent(null, options.last);
    if (options.json) return { code: 0, out: [JSON.stringify({ settingChanges: changes }, null, 2)] };
    if (changes.length === 0) return { code: 0, out: ['No settings have been changed in this database.'] };
    return {
      code: 0,
      out: changes.map((change) => `#${change.id} ${change.guild_id}: ${describeChange(change, false)}`),
    };
  }

  if (options.run !== null) {
    const run = findRun(store, options.run);
    if (!run) {
      console.error(
        `No run has the id "${options.run}", and no single run's id starts with it (none or several do). Copy an id from npm run steps.`,
      );
      return { code: 1, out: [] };
    }
    return { code: 0, out: [options.json ? runsToJson([toReport(run)]) : formatRunDetail(toReport(run))] };
  }

  const out: string[] = [];
  let runs: RunRow[];
  if (options.thread === null) {
    runs = store.runs.recent(null, options.last);
  } else {
    const matches = store.conversations.find(options.thread);
    if (matches.length === 0) {
      console.error(
        `No conversation has the key or title "${options.thread}". A title is the Discord thread's name, or the name given to npm run chat -- --thread NAME; ` +
          'npm run steps without --thread lists the latest runs of every conversation.',
      );
      return { code: 1, out: [] };
    }
    // Titles are not unique (two Discord threads may share a name): show them all, and say so.
    if (matches.length > 1 && !options.json) {
      out.push(
        `${matches.length} conversations are called "${options.thread}" (${matches.map((row) => row.key).join(', ')}): their runs are shown together; pass a key for one.`,
      );
    }
    runs = matches
      .flatMap((conversation) => store.runs.recent(conversation.id, options.last))
      .sort((a, b) => b.started_at - a.started_at)
      .slice(0, options.last);
  }
  const reports = runs.map(toReport);
  if (options.json) return { code: 0, out: [runsToJson(reports)] };
  if (reports.length === 0) {
    out.push(
      options.thread === null
        ? 'No runs are logged in this database yet.'
        : `No runs are logged for "${options.thread}" yet.`,
    );
  } else {
    out.push(formatRunsTable(reports), '', "npm run steps -- --run <id> for one run's steps");
  }
  return { code: 0, out };
}

function main(args: string[]): number {
  const options = readOptions(args);
  if (typeof options === 'number') return options;

  const path = databasePathSetting();
  // openStore would create an empty database; a typo in DATABASE_PATH must not look like "no runs".
  if (!existsSync(path)) {
    console.error(
      `There is no database at ${path} (DATABASE_PATH): nothing has been logged there. Point DATABASE_PATH at the bot's database.`,
    );
    return 1;
  }
  let store: Store;
  try {
    store = openStore(path, { readOnly: true });
  } catch (error) {
    console.error(
      error instanceof UserFacingError
        ? error.userMessage
        : `Cannot open the database ${path}: ${(error as Error).message}`,
    );
    return 1;
  }
  try {
    const { code, out } = report(store, options);
    if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
    return code;
  } finally {
    store.close();
  }
}

// Piped into `head`, the reader may leave early: that is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});
process.exitCode = main(process.argv.slice(2));
