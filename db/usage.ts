import type { Database } from 'better-sqlite3';

export interface UsageDay {
  day: string;
  runs: number;
  tokens: number;
}

export interface UsageLeader {
  name: string;
  runs: number;
  tokens: number;
}

/** A model's share of a server's use: by its name in MODELS_FILE (its server's name for older runs). */
export interface UsageOfModel {
  name: string;
  runs: number;
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt tokens, those the server took from its cache (where it said). */
  cachedTokens: number;
  tokens: number;
}

/** A server's use of the model over the last days: per day, per thread, per person, per model. */
export function createUsageQueries(db: Database) {
  const perDay = db.prepare<[string, number], UsageDay>(
    `SELECT date(r.started_at / 1000, 'unixepoch') AS day, count(*) AS runs, sum(r.total_tokens) AS tokens
     FROM runs r JOIN conversations c ON c.id = r.conversation_id
     WHERE c.guild_id = ? AND r.started_at >= ? GROUP BY day ORDER BY day DESC`,
  );
  const perThread = db.prepare<[string, number, number], UsageLeader>(
    `SELECT c.title AS name, count(*) AS runs, sum(r.total_tokens) AS tokens
     FROM runs r JOIN conversations c ON c.id = r.conversation_id
     WHERE c.guild_id = ? AND r.started_at >= ? GROUP BY c.id ORDER BY tokens DESC LIMIT ?`,
  );
  // A run's tokens go to the author of the last message it answered.
  const perUser = db.prepare<[string, number, number], UsageLeader>(
    `SELECT coalesce(m.author_name, 'someone') AS name, count(*) AS runs, sum(r.total_tokens) AS tokens
     FROM runs r JOIN conversations c ON c.id = r.conversation_id
     LEFT JOIN messages m ON m.id = (SELECT max(value) FROM json_each(r.trigger_message_ids))
     WHERE c.guild_id = ? AND r.started_at >= ? GROUP BY m.author_id ORDER BY tokens DESC LIMIT ?`,
  );
  // Runs that spent no tokens (a person's /tool) say nothing of a model.
  const perModel = db.prepare<[string, number], UsageOfModel>(
    `SELECT coalesce(r.model_name, r.model) AS name, count(*) AS runs, sum(r.prompt_tokens) AS promptTokens,
       sum(r.completion_tokens) AS completionTokens, sum(r.cached_tokens) AS cachedTokens, sum(r.total_tokens) AS tokens
     FROM runs r JOIN conversations c ON c.id = r.conversation_id
     WHERE c.guild_id = ? AND r.started_at >= ? AND r.total_tokens > 0 GROUP BY 1 ORDER BY tokens DESC, name`,
  );
  const ofPerson = db.prepare<[string, string, number], { runs: number; tokens: number }>(
    `SELECT count(*) AS runs, coalesce(sum(r.total_tokens), 0) AS tokens
     FROM runs r JOIN conversations c ON c.id = r.conversation_id
     WHERE c.guild_id = ? AND c.started_by_id = ? AND r.started_at >= ?`,
  );
  return {
    perModel: (guildId: string, since: number) => perModel.all(guildId, since),
    /**
     * One person's runs and tokens since `since` in the conversations they started in a place: for
     * the user install's, each of which is one person's (`userInstallConversationKey`).
     */
    ofPerson: (guildId: string, userId: string, since: number) => ofPerson.get(guildId, userId, since)!,
    perDay: (guildId: string, since: number) => perDay.all(guildId, since),
    busiestThreads: (guildId: string, since: number, limit = 5) => perThread.all(guildId, since, limit),
    busiestUsers: (guildId: string, since: number, limit = 5) => perUser.all(guildId, since, limit),
  };
}
