import type { Database } from 'better-sqlite3';

export interface ModelServerRow {
  server: string;
  model: string;
  /** JSON: the fixes learned from the server's answers. */
  learned: string;
  /** JSON: the last `npm run doctor` report. */
  checkup: string | null;
  updated_at: number;
}

/** What the bot remembers of each model server and model it talked to. */
export function createModelServerQueries(db: Database) {
  const byKey = db.prepare<[string, string], ModelServerRow>(
    'SELECT * FROM model_servers WHERE server = ? AND model = ?',
  );
  const setLearned = db.prepare<{ server: string; model: string; learned: string; now: number }>(
    `INSERT INTO model_servers (server, model, learned, updated_at) VALUES (@server, @model, @learned, @now)
     ON CONFLICT (server, model) DO UPDATE SET learned = excluded.learned, updated_at = excluded.updated_at`,
  );
  const setCheckup = db.prepare<{ server: string; model: string; checkup: string; now: number }>(
    `INSERT INTO model_servers (server, model, checkup, updated_at) VALUES (@server, @model, @checkup, @now)
     ON CONFLICT (server, model) DO UPDATE SET checkup = excluded.checkup, updated_at = excluded.updated_at`,
  );
  const all = db.prepare<[], ModelServerRow>('SELECT * FROM model_servers ORDER BY server, model');
  const remove = db.prepare<[string, string]>('DELETE FROM model_servers WHERE server = ? AND model = ?');
  return {
    get: (server: string, model: string) => byKey.get(server, model),
    /** Every server and model remembered, by server then model. */
    list: () => all.all(),
    /** Forgets one server and model (its learned fixes and the doctor's report); whether there was one. */
    forget: (server: string, model: string) => remove.run(server, model).changes > 0,
    setLearned: (server: string, model: string, learned: string, now = Date.now()) =>
      void setLearned.run({ server, model, learned, now }),
    setCheckup: (server: string, model: string, checkup: string, now = Date.now()) =>
      void setCheckup.run({ server, model, checkup, now }),
  };
}
