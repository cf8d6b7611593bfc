/**
 * Changes SQLite's ALTER TABLE cannot make: a constraint loosened (a CHECK widened, a NOT NULL
 * dropped) by editing the table's schema text in place, as SQLite's docs allow for a constraint
 * every row already passes ("removing CHECK or FOREIGN KEY or NOT NULL constraints",
 * https://www.sqlite.org/lang_altertable.html#otheralter, "writable_schema"). better-sqlite3 opens
 * connections in SQLite's defensive mode, which forbids it; its unsafe mode lifts that for the edit
 * (better-sqlite3 src/objects/database.cpp, SQLITE_DBCONFIG_DEFENSIVE). Used by migrations 20 and 26.
 */
import type { Database } from 'better-sqlite3';

/**
 * Replaces `from` by `to` in the schema text of `table`, where `to` only loosens a constraint;
 * nothing when `to` is there already (a repair ran it). Throws, changing nothing, unless exactly
 * the text it loosens was there to change; the connection's unsafe mode and writable_schema are put
 * back whatever happens.
 */
export function loosenSchemaText(db: Database, table: string, from: string, to: string): void {
  const sql = String(db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(table));
  if (!sql.includes(from) && sql.includes(to)) return;
  const version = db.pragma('schema_version', { simple: true }) as number;
  db.unsafeMode(true);
  db.pragma('writable_schema = ON');
  try {
    const changed = db
      .prepare(
        `UPDATE sqlite_schema SET sql = replace(sql, @from, @to) WHERE type = 'table' AND name = @table AND instr(sql, @from) > 0`,
      )
      .run({ table, from, to }).changes;
    if (changed !== 1)
      throw new Error(`the ${table} table's schema is not the one this migration loosens: not migrated`);
    db.pragma(`schema_version = ${version + 1}`);
  } finally {
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }
}

/** Adds 'catch-up' to the kinds the runs table's CHECK allows (migration 20). */
export function widenRunKinds(db: Database): void {
  loosenSchemaText(
    db,
    'runs',
    "CHECK (kind IN ('answer', 'summary'))",
    "CHECK (kind IN ('answer', 'summary', 'catch-up'))",
  );
}
