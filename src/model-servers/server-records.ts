/**
 * Where the fixes learned of a server are kept, per server and model: SQLite for the bot
 * (db/model-servers.ts), a map for a process without a database. What a fix is lives in
 * server-fixes.ts; only what was learned is stored, never the profile's own.
 */
import { parseJsonOr } from '../text/parse-json.ts';
import { mergeFixes, type ServerFixes } from './server-fixes.ts';

/** What is remembered of one server and model. */
export interface ServerRecord {
  /** Fixes learned from its answers (the profile's own are not stored). */
  learned: ServerFixes;
  /** The last `npm run doctor` report, as JSON the doctor wrote. */
  checkup: unknown;
  updatedAt: number;
}

/** Where fixes are remembered (SQLite for the bot; a map in tests that need no database). */
export interface ServerRecords {
  read(server: string, model: string): ServerRecord | null;
  learn(server: string, model: string, fixes: ServerFixes): void;
  saveCheckup(server: string, model: string, checkup: unknown): void;
}

/** Records kept in memory only: for a process without a database. */
export function recordsInMemory(): ServerRecords {
  const records = new Map<string, ServerRecord>();
  const key = (server: string, model: string) => `${server}\n${model}`;
  const get = (server: string, model: string) =>
    records.get(key(server, model)) ?? { learned: {}, checkup: null, updatedAt: Date.now() };
  return {
    read: (server, model) => records.get(key(server, model)) ?? null,
    learn(server, model, fixes) {
      const record = get(server, model);
      records.set(key(server, model), { ...record, learned: mergeFixes(record.learned, fixes), updatedAt: Date.now() });
    },
    saveCheckup(server, model, checkup) {
      records.set(key(server, model), { ...get(server, model), checkup, updatedAt: Date.now() });
    },
  };
}

/** Records in the database (db/model-servers.ts); a record that does not parse counts as none. */
export function recordsInDatabase(queries: {
  get(server: string, model: string): { learned: string; checkup: string | null; updated_at: number } | undefined;
  setLearned(server: string, model: string, learned: string): void;
  setCheckup(server: string, model: string, checkup: string): void;
}): ServerRecords {
  const parse = (text: string | null): unknown => (text === null ? null : parseJsonOr(text, null));
  const read = (server: string, model: string): ServerRecord | null => {
    const row = queries.get(server, model);
    if (!row) return null;
    const learned = parse(row.learned);
    return {
      learned: typeof learned === 'object' && learned !== null ? (learned as ServerFixes) : {},
      checkup: parse(row.checkup),
      updatedAt: row.updated_at,
    };
  };
  return {
    read,
    learn: (server, model, fixes) =>
      queries.setLearned(server, model, JSON.stringify(mergeFixes(read(server, model)?.learned, fixes))),
    saveCheckup: (server, model, checkup) => queries.setCheckup(server, model, JSON.stringify(checkup)),
  };
}
