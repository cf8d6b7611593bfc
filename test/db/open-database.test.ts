import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { latestVersion, migrations } from '../../db/migrations.ts';
import {
  DatabaseFromFutureError,
  DatabaseFromPastError,
  openDatabase,
  openDatabaseReadOnly,
} from '../../db/open-database.ts';

const tempPath = (name = 'bot.sqlite') => join(mkdtempSync(join(tmpdir(), 'db-test-')), 'nested', 'folder', name);

describe('openDatabase', () => {
  it('creates its folder, migrates an empty database, and sets WAL, synchronous=NORMAL and foreign keys', () => {
    const path = tempPath();
    const db = openDatabase(path);
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('secure_delete', { simple: true })).toBe(1);
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'messages_fts_%' AND name NOT LIKE 'knowledge_fts_%' ORDER BY name",
      )
      .pluck()
      .all();
    expect(tables).toEqual([
      'answer_reports',
      'catch_up_authors',
      'channel_cursors',
      'content_flags',
      'conversations',
      'forgets',
      'guild_usage_days',
      'instances',
      'knowledge_chunks',
      'knowledge_documents',
      'knowledge_embeddings',
      'knowledge_fts',
      'log_outbox',
      'member_facts',
      'memory_summaries',
      'message_images',
      'messages',
      'messages_fts',
      'model_servers',
      'runs',
      'schedule_runs',
      'schedules',
      'setting_changes',
      'steps',
    ]);
    db.close();
  });

  it('re-opens idempotently, keeping the data', () => {
    const path = tempPath();
    const first = openDatabase(path);
    first.prepare("INSERT INTO conversations (key, title, created_at) VALUES ('terminal:a', 'a', 1)").run();
    first.close();
    const second = openDatabase(path);
    expect(second.pragma('user_version', { simple: true })).toBe(latestVersion);
    expect(second.prepare('SELECT key FROM conversations').pluck().all()).toEqual(['terminal:a']);
    second.close();
  });

  it('repairs a database made while main numbered its migrations 18 and 21 before 19 and 20 (migration 22)', () => {
    const path = tempPath();
    // As such a database was: migrations up to 18 and 21 applied, user_version 21.
    const made = new BetterSqlite3(path.replace('nested/folder/', ''));
    for (const migration of migrations.filter((each) => each.version <= 18 || each.version === 21)) migration.up(made);
    made.pragma('user_version = 21');
    made.close();
    const db = openDatabase(path.replace('nested/folder/', ''));
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['schedules', 'schedule_runs', 'catch_up_authors']));
    expect(String(db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'runs'").pluck().get())).toContain(
      "'catch-up'",
    );
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion);
    db.close();
  });

  it('runs each migration in a transaction: a failing one leaves the database at the version before it', () => {
    const path = tempPath();
    openDatabase(path).close();
    const broken = [
      ...migrations,
      {
        version: latestVersion + 1,
        name: 'fails half-way',
        up: (db: BetterSqlite3.Database) => {
          db.exec('CREATE TABLE half (x INTEGER)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => openDatabase(path, { migrations: broken })).toThrow('boom');
    const db = new BetterSqlite3(path);
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuses a database written by a newer version, with a clear message, and leaves it untouched', () => {
    const path = tempPath();
    openDatabase(path).close();
    const raw = new BetterSqlite3(path);
    raw.pragma('journal_mode = DELETE');
    raw.pragma(`user_version = ${latestVersion + 1}`);
    raw.close();
    const before = readFileSync(path);

    let error: unknown;
    try {
      openDatabase(path);
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(DatabaseFromFutureError);
    expect((error as DatabaseFromFutureError).userMessage).toContain(
      `schema version ${latestVersion + 1}, but this version of the bot knows only up to ${latestVersion}`,
    );
    expect((error as DatabaseFromFutureError).userMessage).toContain('The database was not changed.');
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('opens read-only for viewers: never creates, migrates or writes', () => {
    const path = tempPath();
    expect(() => openDatabaseReadOnly(path)).toThrow('Cannot open database because the directory does not exist');
    expect(existsSync(path)).toBe(false);

    const old = new BetterSqlite3((openDatabase(path).close(), path));
    old.pragma('journal_mode = DELETE');
    old.pragma('user_version = 0');
    old.close();
    const before = readFileSync(path);
    expect(() => openDatabaseReadOnly(path)).toThrow(DatabaseFromPastError);
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});
