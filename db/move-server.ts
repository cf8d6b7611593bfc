/**
 * Moving one Discord server's data from one database to another (`npm run move-server`): which
 * rows are the server's (move-server-tables.ts), what the two databases hold of it, the copy into the
 * target in one transaction, and the deletion from the source in another. SQLite cannot commit
 * across two files at once, so the copy comes first: a crash between the two leaves the server in
 * both, and `planMove` then finds the copy complete (`copied`) so that the deletion can finish it.
 *
 * The caller makes sure no process writes to either database meanwhile (src/move-server.ts holds
 * both with a sole instance).
 */
import type { Database } from 'better-sqlite3';
import { directMessagesServerId, userInstallServerId } from './conversations.ts';
import { copyConversations, deleteConversations } from './move-server-conversations.ts';
import {
  columnsOf,
  conversationColumns,
  inserter,
  movedTables,
  quoted,
  serverRowsOf,
  serverTables,
  type TableRule,
  tablesOf,
  unclassifiedTables,
} from './move-server-tables.ts';

/** What a database holds of one server: its conversations' keys, and its rows per moved table. */
interface ServerSummary {
  keys: string[];
  counts: Record<string, number>;
}

/**
 * Where a move stands: `absent` (neither database has the server), `moved` (only the target has
 * it), `to-copy` (only the source), `copied` (both, alike: a move cut off after its copy),
 * `conflict` (both, not alike).
 */
type MoveState = 'absent' | 'moved' | 'to-copy' | 'copied' | 'conflict';

export interface MovePlan {
  state: MoveState;
  source: ServerSummary;
  target: ServerSummary;
}

const rowTotal = (summary: ServerSummary) => Object.values(summary.counts).reduce((sum, count) => sum + count, 0);

/** The server's conversation keys and row counts in `db`. */
function summarize(db: Database, guild: string, rules: readonly TableRule[] = serverTables): ServerSummary {
  const counts: Record<string, number> = {};
  for (const rule of movedTables(rules))
    counts[rule.table] = db
      .prepare<{ guild: string }, number>(`SELECT count(*) ${serverRowsOf(rule)}`)
      .pluck()
      .get({ guild })!;
  const keys = db
    .prepare<[string], string>('SELECT key FROM conversations WHERE guild_id = ? ORDER BY key')
    .pluck()
    .all(guild);
  return { keys, counts };
}

/** Alike: the same conversation keys and as many rows in every moved table. */
function sameSummary(a: ServerSummary, b: ServerSummary): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** What each database holds of the server, and so what the move has to do. */
export function planMove(
  source: Database,
  target: Database,
  guild: string,
  rules: readonly TableRule[] = serverTables,
): MovePlan {
  const plan = { source: summarize(source, guild, rules), target: summarize(target, guild, rules) };
  const inSource = rowTotal(plan.source) > 0;
  const inTarget = rowTotal(plan.target) > 0;
  const state: MoveState = !inSource
    ? inTarget
      ? 'moved'
      : 'absent'
    : !inTarget
      ? 'to-copy'
      : sameSummary(plan.source, plan.target)
        ? 'copied'
        : 'conflict';
  return { state, ...plan };
}

/**
 * Why this code cannot move a server's rows in `db` (null when it can): a table the rules do not
 * classify, or a column of a table moved with conversations that no one said how to copy.
 */
export function schemaProblem(db: Database, rules: readonly TableRule[] = serverTables): string | null {
  const unknown = unclassifiedTables(db, rules);
  if (unknown.length > 0)
    return `it has tables this version of move-server does not know (${unknown.join(', ')}): list them in db/move-server-tables.ts`;
  const tables = new Set(tablesOf(db));
  for (const rule of rules) {
    if (rule.moves !== 'with-conversations') continue;
    const known = conversationColumns[rule.table];
    const columns = columnsOf(db, rule.table);
    const unlisted = known ? columns.filter((c) => !known.remapped.includes(c) && !known.copied.includes(c)) : columns;
    if (!tables.has(rule.table) || unlisted.length > 0)
      return `move-server does not know how to copy ${rule.table} (${unlisted.join(', ') || 'no such table'}): see db/move-server-tables.ts`;
  }
  return null;
}

/** What was copied: rows per moved table, and the instances rows the moved runs name (copied as stopped). */
export interface CopyResult {
  counts: Record<string, number>;
  instances: number;
}

/**
 * Copies the server's rows into `target` in one transaction, and checks, before it commits, that
 * the target now holds what the source does (else nothing is copied). The target must hold none
 * of the server's rows (`planMove` says `to-copy`).
 */
export function copyServer(
  source: Database,
  target: Database,
  guild: string,
  options: { rules?: readonly TableRule[]; now?: number } = {},
): CopyResult {
  const rules = options.rules ?? serverTables;
  const now = options.now ?? Date.now();
  const expected = summarize(source, guild, rules);
  return target
    .transaction((): CopyResult => {
      // A run taken up may be copied before the run it took up; the keys hold at the commit.
      target.pragma('defer_foreign_keys = ON');
      // Checked in the write transaction: the copy replaces rows of the server it finds (its own, below).
      if (rowTotal(summarize(target, guild, rules)) > 0)
        throw new Error('the target holds data of this server already; nothing was copied');
      const instancesBefore = target.prepare<[], number>('SELECT count(*) FROM instances').pluck().get()!;
      const { messages, conversations } = copyConversations(source, target, guild, now);
      // Each table's ids given anew, old → new (tables with an `idColumn`).
      const newIds = new Map<string, Map<number, number>>();
      for (const rule of movedTables(rules)) {
        if (rule.moves === 'with-conversations') continue;
        const columns = columnsOf(target, rule.table, [rule.idColumn]);
        // Rows the copy itself made: guild_usage_days sums of the runs' insert trigger, replaced by the source's.
        if (rule.moves === 'by-guild')
          target.prepare(`DELETE FROM ${quoted(rule.table)} WHERE ${quoted(rule.guildColumn)} = ?`).run(guild);
        const insert = inserter(target, rule.table, columns);
        const order = rule.idColumn ? ` ORDER BY t.${quoted(rule.idColumn)}` : '';
        const ids = new Map<number, number>();
        newIds.set(rule.table, ids);
        for (const row of source
          .prepare<{ guild: string }, Record<string, unknown>>(`SELECT t.* ${serverRowsOf(rule)}${order}`)
          .iterate({ guild })) {
          if (rule.moves === 'by-guild')
            for (const [column, table] of Object.entries(rule.remaps ?? {}))
              row[column] = newIds.get(table)?.get(row[column] as number) ?? null;
          if (rule.moves === 'by-message') {
            row[rule.messageColumn] = messages.get(row[rule.messageColumn] as number);
            if (rule.conversationColumn)
              row[rule.conversationColumn] = conversations.get(row[rule.conversationColumn] as number);
          }
          const inserted = insert(row);
          if (rule.idColumn) ids.set(row[rule.idColumn] as number, inserted);
        }
      }
      // A run names its persona by the id of the setting change that set it: the change's new id.
      const personaVersion = target.prepare<[number | null, string]>(
        'UPDATE runs SET persona_version = ? WHERE id = ?',
      );
      for (const run of source
        .prepare<{ guild: string }, { id: string; persona_version: number }>(
          `SELECT t.id, t.persona_version FROM runs t JOIN conversations c ON c.id = t.conversation_id WHERE c.guild_id = @guild AND t.persona_version IS NOT NULL`,
        )
        .iterate({ guild }))
        personaVersion.run(newIds.get('setting_changes')?.get(run.persona_version) ?? null, run.id);
      const copied = summarize(target, guild, rules);
      if (!sameSummary(copied, expected))
        throw new Error(
          `the copy does not match the source (${JSON.stringify(copied.counts)} against ${JSON.stringify(expected.counts)}); nothing was copied`,
        );
      const instancesAfter = target.prepare<[], number>('SELECT count(*) FROM instances').pluck().get()!;
      return { counts: copied.counts, instances: instancesAfter - instancesBefore };
    })
    .immediate();
}

/** Deletes the server's rows from `db` in one transaction. */
export function deleteServer(db: Database, guild: string, rules: readonly TableRule[] = serverTables): void {
  db.transaction(() => {
    // Rows that hang off messages go before them (their key may not cascade).
    for (const rule of movedTables(rules))
      if (rule.moves === 'by-message')
        db.prepare(
          `DELETE FROM ${quoted(rule.table)} WHERE ${quoted(rule.messageColumn)} IN (SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.guild_id = ?)`,
        ).run(guild);
    deleteConversations(db, guild);
    for (const rule of movedTables(rules))
      if (rule.moves === 'by-guild')
        db.prepare(`DELETE FROM ${quoted(rule.table)} WHERE ${quoted(rule.guildColumn)} = ?`).run(guild);
  }).immediate();
}

/** Runs of the server still marked running (their process is gone, or the move would be refused). */
export function runningRunsOf(db: Database, guild: string): number {
  return db
    .prepare<[string], number>(
      `SELECT count(*) FROM runs r JOIN conversations c ON c.id = r.conversation_id WHERE c.guild_id = ? AND r.status = 'running'`,
    )
    .pluck()
    .get(guild)!;
}

/** Every server that has rows in `db` (in the tables that exist there), sorted. */
export function serversIn(db: Database, rules: readonly TableRule[] = serverTables): string[] {
  const present = new Set(tablesOf(db));
  const sources = [
    ...(present.has('conversations') ? ['SELECT guild_id AS g FROM conversations'] : []),
    ...movedTables(rules)
      .filter((rule) => rule.moves === 'by-guild' && present.has(rule.table))
      .map((rule) => `SELECT ${quoted((rule as { guildColumn: string }).guildColumn)} AS g FROM ${quoted(rule.table)}`),
  ];
  if (sources.length === 0) return [];
  return (
    db
      // DMs' "@me" (setting_changes, forgets) is no server, nor user-installed use's "@user-install"
      // (USER_INSTALL): neither has a shard (Discord's snowflake arithmetic), neither is moved.
      .prepare<[string, string], string>(
        `SELECT g FROM (${sources.join(' UNION ')}) WHERE g IS NOT NULL AND g NOT IN (?, ?) ORDER BY g`,
      )
      .pluck()
      .all(directMessagesServerId, userInstallServerId)
  );
}
