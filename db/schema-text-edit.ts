/**
 * A change SQLite's ALTER TABLE cannot make: a CHECK loosened by editing the table's schema text in
 * place, as SQLite's docs allow for a constraint every row already passes
 * (https://www.sqlite.org/lang_altertable.html#otheralter, "writable_schema"). better-sqlite3 opens
 * connections in SQLite's defensive mode, which forbids it; its unsafe mode lifts that for the edit
 * (better-sqlite3 src/objects/database.cpp, SQLITE_DBCONFIG_DEFENSIVE). Used by migration 20.
 */
import type { Database } from 'better-sqlite3';

/**
 * Adds 'catch-up' to the kinds the runs table's CHECK allows, by editing its schema text in place
 * (see migration 20), unless it allows it already. Throws, changing nothing, unless exactly the text
 * it widens was there to change; the
 * connection's unsafe mode and writable_schema are put back whatever happens.
 */
export function widenRunKinds(db: Database): void {
  const runs = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'runs'").pluck().get();
  if (String(runs).includes("'catch-up'")) return; // Widened already (a repair, migration 22).
  const version = db.pragma('schema_version', { simple: true }) as number;
  db.unsafeMode(true);
  db.pragma('writable_schema = ON');
  try {
    const changed = db
      .prepare(
        `UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (kind IN (''answer'', ''summary''))', 'CHECK (kind IN (''answer'', ''summary'', ''catch-up''))')
         WHERE type = 'table' AND name = 'runs' AND instr(sql, 'CHECK (kind IN (''answer'', ''summary''))') > 0`,
      )
      .run().changes;
    if (changed !== 1) throw new Error("the runs table's kind CHECK is not the one migration 20 widens: not migrated");
    db.pragma(`schema_version = ${version + 1}`);
  } finally {
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }
}
