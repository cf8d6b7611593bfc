import type { Database } from 'better-sqlite3';
import { directMessagesServerId } from './conversations.ts';

/**
 * The `model` of a run a person made with `/tool` (a tool called without the model), naming who
 * made it: their arguments are their words, which `/forget-me` finds the run by (forget-member.ts).
 */
export const directCallModel = (requesterId: string) => `direct (/tool by ${requesterId})`;

type RunRowStatus = 'running' | 'answered' | 'stopped' | 'failed' | 'interrupted';

export interface RunRow {
  id: string;
  conversation_id: number;
  instance_id: string;
  /** JSON array of the ids of the messages that started the run. */
  trigger_message_ids: string;
  status: RunRowStatus;
  stop_reason: string | null;
  model: string;
  started_at: number;
  ended_at: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Of the prompt tokens, those the servers took from their caches, where they said (0 where none did). */
  cached_tokens: number;
  error: string | null;
  error_code: string | null;
  /** JSON array of the Discord message ids the run posted. */
  posted_message_ids: string;
  /** JSON array of the messages its answer was shown in as it was written (STREAM_ANSWERS), in order. */
  live_message_ids: string;
  /** The text of an answer message being posted, until its id is recorded (null otherwise). */
  live_pending: string | null;
  /** The model chosen where it ran, by its name in MODELS_FILE (null before migration 10, and for `/tool`). */
  model_name: string | null;
  /** The version of the place's persona it ran with (the id of the change that set it); null: none. */
  persona_version: number | null;
  /** When its answer (or why there is none) was posted; null until then, as after a crash in between. */
  delivered_at: number | null;
  /** The interrupted run this one resumes. */
  resumed_from: string | null;
  /** How its delivery ended (null until delivered, and for runs delivered before migration 5). */
  delivery: RunDelivery | null;
  /** 'summary': a run that summed up turns the memory window no longer holds (db/memory-summaries.ts); 'catch-up': a `/summarize` (db/catch-up-runs.ts). */
  kind: 'answer' | 'summary' | 'catch-up';
}

/**
 * How a run's delivery ended: its answer (or why there is none) posted, or the post tried and
 * failed, or resumed by a retry with a smaller window, or withheld (those concerned were told
 * already), or nothing left to answer (its messages were deleted), or given up after being cut off
 * again and again.
 */
export type RunDelivery = 'posted' | 'post-failed' | 'retried' | 'withheld' | 'nothing-to-answer' | 'given-up';

interface RunEnd {
  status: Exclude<RunRowStatus, 'running'>;
  stopReason: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of the prompt tokens, those taken from the servers' caches (0 where none said). */
  cachedTokens?: number;
  error: string | null;
  errorCode: string | null;
}

/** What a run is started with. */
export interface NewRun {
  id: string;
  conversationId: number;
  instanceId: string;
  /** The stored messages it answers. */
  triggerMessageIds: number[];
  model: string;
  /** The interrupted run this one resumes, if any. */
  resumedFrom?: string | null;
}

/** Every query on runs, its statements prepared once: a run's life, its delivery, and looking runs up. */
export function createRunQueries(db: Database) {
  return { ...runLifeQueries(db), ...runDeliveryQueries(db), ...runLookupQueries(db) };
}

/** A run's life as the step log writes it: started (or refused), its usage, its end or interruption. */
function runLifeQueries(db: Database) {
  const insert = db.prepare<[string, number, string, string, string, number, string | null]>(
    `INSERT INTO runs (id, conversation_id, instance_id, trigger_message_ids, status, model, started_at, resumed_from) VALUES (?, ?, ?, ?, 'running', ?, ?, ?)`,
  );
  const insertRefused = db.prepare(
    `INSERT INTO runs (id, conversation_id, instance_id, trigger_message_ids, status, model, started_at, ended_at, error, error_code, delivered_at, delivery, resumed_from)
     VALUES (@id, @conversationId, @instanceId, @triggerMessageIds, 'failed', @model, @now, @now, @error, 'call-refused', @deliveredAt, @delivery, @resumedFrom)`,
  );
  const markInterrupted = db.prepare<[number, string, string]>(
    `UPDATE runs SET status = 'interrupted', ended_at = ?, error = ? WHERE id = ?`,
  );
  const markAnswered = db.prepare<[string]>(`UPDATE runs SET status = 'answered', error = NULL WHERE id = ?`);
  const finish = db.prepare(
    `UPDATE runs SET status = @status, stop_reason = @stopReason, ended_at = @endedAt, prompt_tokens = @promptTokens,
       completion_tokens = @completionTokens, total_tokens = @totalTokens, cached_tokens = @cachedTokens, error = @error,
       error_code = @errorCode
     WHERE id = @id`,
  );
  const addUsage = db.prepare<[number, number, number, number, string]>(
    `UPDATE runs SET prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?, total_tokens = total_tokens + ?,
       cached_tokens = cached_tokens + ? WHERE id = ?`,
  );
  const setSettingsUsed = db.prepare<[string, number | null, string]>(
    'UPDATE runs SET model_name = ?, persona_version = ? WHERE id = ?',
  );
  const runningOf = db.prepare<[string], RunRow>(`SELECT * FROM runs WHERE status = 'running' AND instance_id = ?`);
  const interrupt = db.prepare<[number, string]>(
    `UPDATE runs SET status = 'interrupted', ended_at = ?, error = 'the process running it stopped before it ended' WHERE status = 'running' AND instance_id = ?`,
  );

  return {
    start: (run: NewRun, now = Date.now()) =>
      void insert.run(
        run.id,
        run.conversationId,
        run.instanceId,
        JSON.stringify(run.triggerMessageIds),
        run.model,
        now,
        run.resumedFrom ?? null,
      ),
    /** The model (by name) and persona version the run was made with. */
    setSettingsUsed: (id: string, modelName: string, personaVersion: number | null) =>
      void setSettingsUsed.run(modelName, personaVersion, id),
    /** Marks a run interrupted (a shutdown stopped it), to be resumed at the next start. */
    interrupt: (id: string, reason: string, now = Date.now()) => void markInterrupted.run(now, reason, id),
    /** An interrupted run whose answer has now been posted. */
    markAnswered: (id: string) => void markAnswered.run(id),
    /** A run refused before its first model call (the daily budget): failed, and delivered as `delivery` says. */
    recordRefused: (run: NewRun & { error: string; delivery: RunDelivery | null }, now = Date.now()) =>
      void insertRefused.run({
        ...run,
        triggerMessageIds: JSON.stringify(run.triggerMessageIds),
        resumedFrom: run.resumedFrom ?? null,
        now,
        deliveredAt: run.delivery === null ? null : now,
      }),
    /** Adds one model call's tokens as it happens, so that a crash keeps what was spent. */
    addUsage: (id: string, prompt: number, completion: number, total: number, cached = 0) =>
      void addUsage.run(prompt, completion, total, cached, id),
    finish: (id: string, end: RunEnd, now = Date.now()) =>
      void finish.run({ id, cachedTokens: 0, ...end, endedAt: now }),
    runningOf: (instanceId: string) => runningOf.all(instanceId),
    /** Marks the instance's running runs interrupted; returns how many. */
    interruptAllOf: (instanceId: string, now = Date.now()) => interrupt.run(now, instanceId).changes,
  };
}

/** What a run posted and whether its answer was delivered: what is still owed, and what to resume. */
function runDeliveryQueries(db: Database) {
  // Interrupted or ended, never delivered (a crash in between), and not resumed by a later run,
  // oldest first. A run given up on, or with nothing left to answer, is delivered: never again.
  const owedRuns = db.prepare<[number], RunRow>(
    `SELECT * FROM runs r WHERE r.conversation_id = ?
       AND r.status <> 'running' AND r.delivered_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM runs later WHERE later.resumed_from = r.id) ORDER BY r.started_at`,
  );
  const markDelivered = db.prepare<[number, string, string]>(
    'UPDATE runs SET delivered_at = ?, delivery = ? WHERE id = ?',
  );
  // The run and those it took up in turn, newest first; bounded, whatever the rows say.
  const chain = db.prepare<[string, number], RunRow>(
    `WITH RECURSIVE chain(id, depth) AS (SELECT ?, 0 UNION ALL SELECT r.resumed_from, chain.depth + 1 FROM runs r JOIN chain ON r.id = chain.id
       WHERE r.resumed_from IS NOT NULL AND chain.depth < ?)
     SELECT runs.* FROM chain JOIN runs ON runs.id = chain.id ORDER BY chain.depth`,
  );
  const latestTrigger = db
    .prepare<[number], number | null>(
      `SELECT max(value) FROM runs, json_each(runs.trigger_message_ids) WHERE runs.conversation_id = ?`,
    )
    .pluck();
  const addLive = db.prepare<[string, string]>(
    `UPDATE runs SET live_message_ids = json_insert(live_message_ids, '$[#]', ?), live_pending = NULL WHERE id = ?`,
  );
  const setLivePending = db.prepare<[string | null, string]>('UPDATE runs SET live_pending = ? WHERE id = ?');
  const addPosted = db.prepare<[string, string]>(
    `UPDATE runs SET posted_message_ids = json_insert(posted_message_ids, '$[#]', ?) WHERE id = ?`,
  );
  const postedAny = db.prepare<[number], { posted: number }>(
    `SELECT EXISTS (SELECT 1 FROM runs WHERE conversation_id = ? AND posted_message_ids <> '[]') AS posted`,
  );

  return {
    /** Runs of the conversation to resume: interrupted, or ended but never delivered. */
    toResume: (conversationId: number) => owedRuns.all(conversationId),
    /** The newest message any run of the conversation was started for (0 when none). */
    latestTrigger: (conversationId: number) => latestTrigger.get(conversationId) ?? 0,
    /** The run's delivery ended, as `delivery` says: nothing more is owed for it. */
    markDelivered: (id: string, delivery: RunDelivery, now = Date.now()) => void markDelivered.run(now, delivery, id),
    /** The run and the runs it took up in turn, newest first, at most `limit`. */
    chain: (id: string, limit = 20) => chain.all(id, limit - 1),
    addPostedMessage: (id: string, discordMessageId: string) => void addPosted.run(discordMessageId, id),
    /** The text of an answer message about to be posted (cleared when its id is recorded). */
    setLivePending: (id: string, content: string) => void setLivePending.run(content, id),
    /** A message the run's answer is shown in as it is written (posted too, so that it leads back to the run). */
    addLiveMessage: db.transaction((id: string, discordMessageId: string) => {
      addPosted.run(discordMessageId, id);
      addLive.run(discordMessageId, id);
    }),
    /** Whether any run of the conversation posted a message (so its thread existed). */
    postedAny: (conversationId: number) => postedAny.get(conversationId)!.posted === 1,
  };
}

/** Runs looked up for people and reports: by id or its prefix, by a message they posted, the newest, and a server's tokens of a day. */
function runLookupQueries(db: Database) {
  const byId = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?');
  // Not LIKE: "%" and "_" in what a person typed must not act as wildcards.
  const byPrefix = db.prepare<[{ prefix: string }], RunRow>(
    'SELECT * FROM runs WHERE substr(id, 1, length(@prefix)) = @prefix ORDER BY started_at DESC LIMIT 2',
  );
  const byPostedMessage = db.prepare<[number, string], RunRow>(
    'SELECT * FROM runs r WHERE r.conversation_id = ? AND EXISTS (SELECT 1 FROM json_each(r.posted_message_ids) WHERE value = ?)',
  );
  const recent = db.prepare<[number, number], RunRow>(
    'SELECT * FROM runs WHERE conversation_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?',
  );
  const recentAll = db.prepare<[number], RunRow>('SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?');
  const tokensOnDay = db
    .prepare<[string, number], number>('SELECT tokens FROM guild_usage_days WHERE guild_id = ? AND day = ?')
    .pluck();
  // Every place's tokens that day, direct messages ("@me") included: by guild_usage_days_by_day.
  const allTokens = db
    .prepare<[number], number>('SELECT coalesce(sum(tokens), 0) FROM guild_usage_days WHERE day = ?')
    .pluck();

  return {
    byId: (id: string) => byId.get(id),
    /** Runs whose id starts with `prefix`: two at the most, enough to tell "one" from "several". */
    byPrefix: (prefix: string) => byPrefix.all({ prefix }),
    /** The run of the conversation that posted this Discord message. */
    byPostedMessage: (conversationId: number, messageId: string) => byPostedMessage.get(conversationId, messageId),
    recent: (conversationId: number | null, limit: number) =>
      conversationId === null ? recentAll.all(limit) : recent.all(conversationId, limit),
    /** Tokens of the server's runs that started on the UTC day that begins at `dayStart`. */
    tokensOnDay: (guildId: string, dayStart: number) =>
      tokensOnDay.get(guildId, Math.floor(dayStart / 86_400_000)) ?? 0,
    /**
     * Tokens of every direct-message conversation's runs that started on the UTC day that begins at
     * `dayStart`, counted as they were spent (a forget or the retention sweep gives none back).
     */
    directMessageTokensOnDay: (dayStart: number) =>
      tokensOnDay.get(directMessagesServerId, Math.floor(dayStart / 86_400_000)) ?? 0,
    /** Tokens of every server's and every direct message's runs on that day (TOTAL_DAILY_TOKENS). */
    allTokensOnDay: (dayStart: number) => allTokens.get(Math.floor(dayStart / 86_400_000)) ?? 0,
  };
}

export type RunQueries = ReturnType<typeof createRunQueries>;
