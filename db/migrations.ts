import type { Database } from 'better-sqlite3';
import { firstSchema } from './first-schema.ts';
import { remindersToSchedules } from './reminders-to-schedules.ts';
import { loosenSchemaText, widenRunKinds } from './schema-text-edit.ts';

/** One step of the schema. Versions increase by one; each runs in its own transaction. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

/** The schema's history, oldest first. Append, never edit a migration that has shipped. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'conversations, messages, runs, steps and instances',
    up(db) {
      db.exec(firstSchema);
    },
  },
  {
    version: 2,
    name: 'full-text search over what people and the agent said',
    up(db) {
      // External-content FTS5 over messages, kept in step by triggers: edits and deletions included.
      db.exec(`
        CREATE VIRTUAL TABLE messages_fts USING fts5(content, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO messages_fts (rowid, content) SELECT id, content FROM messages WHERE role IN ('user', 'assistant') AND content <> '';
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.role IN ('user', 'assistant') AND new.content <> '' BEGIN
          INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
        END;
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.role IN ('user', 'assistant') AND old.content <> '' BEGIN
          INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
        END;
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages WHEN old.role IN ('user', 'assistant') BEGIN
          INSERT INTO messages_fts (messages_fts, rowid, content) SELECT 'delete', old.id, old.content WHERE old.content <> '';
          INSERT INTO messages_fts (rowid, content) SELECT new.id, new.content WHERE new.content <> '';
        END;
      `);
    },
  },
  {
    version: 3,
    name: 'reminders',
    up(db) {
      db.exec(`
        CREATE TABLE reminders (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          guild_id TEXT,
          channel_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          text TEXT NOT NULL,
          due_at INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          sent_at INTEGER
        ) STRICT;
        CREATE INDEX reminders_due ON reminders (due_at) WHERE sent_at IS NULL;
      `);
    },
  },
  {
    version: 4,
    name: 'tokens per server per day',
    // The daily budget is checked at every message: one row read, not a sum over the day's runs.
    // Kept by triggers as a run's tokens grow (by the day it started); tokens spent stay counted
    // when a deleted thread's runs go.
    up(db) {
      db.exec(`
        CREATE TABLE guild_usage_days (
          guild_id TEXT NOT NULL,
          day INTEGER NOT NULL,
          tokens INTEGER NOT NULL,
          PRIMARY KEY (guild_id, day)
        ) STRICT, WITHOUT ROWID;
        CREATE TRIGGER runs_usage_on_insert AFTER INSERT ON runs WHEN NEW.total_tokens <> 0 BEGIN
          INSERT INTO guild_usage_days (guild_id, day, tokens)
            SELECT c.guild_id, NEW.started_at / 86400000, NEW.total_tokens FROM conversations c WHERE c.id = NEW.conversation_id AND c.guild_id IS NOT NULL
            ON CONFLICT (guild_id, day) DO UPDATE SET tokens = tokens + excluded.tokens;
        END;
        CREATE TRIGGER runs_usage_on_update AFTER UPDATE OF total_tokens ON runs WHEN NEW.total_tokens <> OLD.total_tokens BEGIN
          INSERT INTO guild_usage_days (guild_id, day, tokens)
            SELECT c.guild_id, NEW.started_at / 86400000, NEW.total_tokens - OLD.total_tokens FROM conversations c WHERE c.id = NEW.conversation_id AND c.guild_id IS NOT NULL
            ON CONFLICT (guild_id, day) DO UPDATE SET tokens = tokens + excluded.tokens;
        END;
        INSERT INTO guild_usage_days (guild_id, day, tokens)
          SELECT c.guild_id, r.started_at / 86400000, sum(r.total_tokens) FROM runs r JOIN conversations c ON c.id = r.conversation_id
          WHERE c.guild_id IS NOT NULL GROUP BY c.guild_id, r.started_at / 86400000 HAVING sum(r.total_tokens) <> 0;
      `);
    },
  },
  {
    version: 5,
    name: 'reminders posted at least once',
    // A reminder was claimed by setting sent_at, then posted: a crash in between lost it. Now the
    // claim names the instance posting it, `delivered_at` is set once Discord confirms, and a claim
    // whose instance is gone is taken over. Rows sent before this version count as delivered (the
    // old code marked them before posting; nothing says which were lost).
    up(db) {
      db.exec(`
        DROP INDEX reminders_due;
        ALTER TABLE reminders RENAME COLUMN sent_at TO delivered_at;
        ALTER TABLE reminders ADD COLUMN claimed_by TEXT;
        ALTER TABLE reminders ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE reminders ADD COLUMN first_attempt_at INTEGER;
        ALTER TABLE reminders ADD COLUMN retry_at INTEGER;
        ALTER TABLE reminders ADD COLUMN content TEXT;
        ALTER TABLE reminders ADD COLUMN message_id TEXT;
        ALTER TABLE reminders ADD COLUMN given_up_at INTEGER;
        ALTER TABLE reminders ADD COLUMN last_error TEXT;
        CREATE INDEX reminders_due ON reminders (due_at) WHERE delivered_at IS NULL AND given_up_at IS NULL;
      `);
    },
  },
  {
    version: 6,
    name: 'how each run was delivered; the last message seen in each channel',
    // Delivered runs before this version say nothing of how: null. A channel's cursor is where the
    // catch-up after a restart starts reading its messages for mentions missed while down.
    up(db) {
      db.exec(`
        ALTER TABLE runs ADD COLUMN delivery TEXT CHECK (delivery IN ('posted', 'post-failed', 'retried', 'withheld', 'nothing-to-answer', 'given-up'));
        CREATE TABLE channel_cursors (
          channel_id TEXT PRIMARY KEY,
          guild_id TEXT NOT NULL,
          last_seen_message_id TEXT NOT NULL,
          seen_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
  {
    version: 7,
    name: 'what each model server needs',
    // Learned from the server's answers (a refused schema keyword, an ignored tool choice) so that
    // the next run starts right, and the last `npm run doctor` report, logged at start.
    up(db) {
      db.exec(`
        CREATE TABLE model_servers (
          server TEXT NOT NULL,
          model TEXT NOT NULL,
          learned TEXT NOT NULL DEFAULT '{}',
          checkup TEXT,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (server, model)
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
  {
    version: 8,
    name: 'the messages an answer was shown in as it was written',
    // So that a run cut off while its answer was being shown has those messages edited into the
    // answer (or removed) when it is resumed, rather than left half-written beside a new one.
    up(db) {
      // `live_pending`: the text of a message being posted, set before the post and cleared once its
      // id is recorded, so that a message Discord took from a process killed in between is found.
      db.exec(`
        ALTER TABLE runs ADD COLUMN live_message_ids TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE runs ADD COLUMN live_pending TEXT;
      `);
    },
  },
  {
    version: 9,
    name: 'the images posted with messages; whether a thread was told its model cannot see them',
    // The bytes live in SQLite, beside their message: deleting the message, the thread or the
    // channel deletes them in the same transaction (ON DELETE CASCADE), a backup of the database
    // holds them, and there is no second store to keep in step. Images are capped (IMAGE_MAX_MB);
    // the window finds a conversation's images in one query (message_images_by_conversation) and
    // reads the blobs of the few it shows only.
    up(db) {
      db.exec(`
        CREATE TABLE message_images (
          id INTEGER PRIMARY KEY,
          message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
          conversation_id INTEGER NOT NULL,
          position INTEGER NOT NULL,
          name TEXT NOT NULL,
          media_type TEXT NOT NULL,
          width INTEGER NOT NULL,
          height INTEGER NOT NULL,
          bytes BLOB NOT NULL
        ) STRICT;
        CREATE INDEX message_images_by_message ON message_images (message_id, position);
        CREATE INDEX message_images_by_conversation ON message_images (conversation_id, message_id);
        ALTER TABLE conversations ADD COLUMN told_no_vision INTEGER NOT NULL DEFAULT 0;
      `);
    },
  },
  {
    version: 10,
    name: 'settings per server, channel and thread, with who set them; the model and persona of each run',
    // Append-only: a setting's value is its newest change at that place (null: cleared, inherited),
    // so that every change stays with who made it and when. A persona's version is the id of the
    // change that set it, which the run records.
    up(db) {
      db.exec(`
        CREATE TABLE setting_changes (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          guild_id TEXT NOT NULL,
          scope TEXT NOT NULL CHECK (scope IN ('server', 'channel', 'thread')),
          scope_id TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT,
          changed_by_id TEXT NOT NULL,
          changed_by_name TEXT NOT NULL,
          changed_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX setting_changes_current ON setting_changes (scope, scope_id, key, id);
        CREATE INDEX setting_changes_by_guild ON setting_changes (guild_id, id);
        ALTER TABLE runs ADD COLUMN model_name TEXT;
        ALTER TABLE runs ADD COLUMN persona_version INTEGER;
      `);
    },
  },
  {
    version: 11,
    name: 'a record of each /forget-me; deleted words leave no trace in the search index',
    // The record says who asked, when, and how many rows went: never what they said. FTS5 keeps a
    // deleted row's terms in its index until segments merge, unless 'secure-delete' is set
    // (https://www.sqlite.org/fts5.html#the_secure_delete_configuration_option, SQLite 3.42).
    up(db) {
      db.exec(`
        CREATE TABLE forgets (
          id INTEGER PRIMARY KEY,
          guild_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          forgotten_at INTEGER NOT NULL,
          counts TEXT NOT NULL
        ) STRICT;
        INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', 1);
      `);
    },
  },
  {
    version: 12,
    name: "the moderators' log channel's outbox: cards owed to a server's log channel",
    // Written in the transaction that records the fact (a run delivered, a setting changed), and
    // deleted only once posted: what is logged survives a crash between the fact and its card.
    up(db) {
      db.exec(`
        CREATE TABLE log_outbox (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          guild_id TEXT NOT NULL,
          entry TEXT NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX log_outbox_by_guild ON log_outbox (guild_id, id);
      `);
    },
  },
  {
    version: 13,
    name: 'members report answers',
    // Once per person per answer (a Discord message of a run); the run's deletion takes its reports.
    up(db) {
      db.exec(`
        CREATE TABLE answer_reports (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          message_id TEXT NOT NULL,
          guild_id TEXT NOT NULL,
          reporter_id TEXT NOT NULL,
          reason TEXT,
          reported_at INTEGER NOT NULL,
          UNIQUE (message_id, reporter_id)
        ) STRICT;
        CREATE INDEX answer_reports_by_run ON answer_reports (run_id);
        CREATE INDEX answer_reports_by_reporter ON answer_reports (guild_id, reporter_id);
      `);
    },
  },
  {
    version: 14,
    name: 'content flags: questions and answers a content check flagged, with its categories and scores',
    // A flagged question starts no run (run_id null); a flagged answer belongs to its run. The
    // categories and scores are JSON ({"categories": [...], "scores": {...}}), never the words.
    // The window leaves flagged questions out (db/messages.ts): the model never sees them.
    up(db) {
      db.exec(`
        CREATE TABLE content_flags (
          id INTEGER PRIMARY KEY,
          conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
          run_id TEXT REFERENCES runs(id) ON DELETE CASCADE,
          message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
          target TEXT NOT NULL CHECK (target IN ('question', 'answer')),
          kind TEXT NOT NULL CHECK (kind IN ('moderations', 'guard')),
          categories TEXT NOT NULL,
          flagged_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX content_flags_by_message ON content_flags (message_id);
        CREATE INDEX content_flags_by_conversation ON content_flags (conversation_id, flagged_at);
        CREATE INDEX content_flags_by_run ON content_flags (run_id);
      `);
    },
  },
  {
    version: 15,
    name: "a conversation's running summary of the turns its memory window no longer holds; summary runs",
    // One row per conversation: the summary and the range of messages it covers, in conversation
    // order (coalesce(answers_id, id), src/memory/window.ts): a run's rows share its order, so a
    // tool call and its result are never on two sides of the range's end. Kept in step by
    // triggers, so that no path that changes messages can forget it: an edit of a covered message
    // makes it stale and empties it (an update that leaves the text as it was, as Discord sends when
    // it adds embeds, does not; rebuilt after the next run, without the old words); a covered
    // message deleted (a deletion in Discord, MESSAGE_RETENTION_DAYS, /forget-me) deletes it; /reset
    // (memory_starts_after) deletes it. A summary run is a run of its own (kind 'summary'), so its
    // tokens count in /usage and the daily budget as a run's do (runs_usage_on_insert).
    up(db) {
      db.exec(`
        CREATE TABLE memory_summaries (
          conversation_id INTEGER PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
          summary TEXT NOT NULL,
          first_message_id INTEGER NOT NULL,
          last_message_id INTEGER NOT NULL,
          tokens INTEGER NOT NULL,
          stale INTEGER NOT NULL DEFAULT 0,
          updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE TRIGGER memory_summaries_edited AFTER UPDATE OF content ON messages WHEN NEW.content IS NOT OLD.content BEGIN
          UPDATE memory_summaries SET stale = 1, summary = '', tokens = 0
          WHERE conversation_id = NEW.conversation_id AND coalesce(NEW.answers_id, NEW.id) <= last_message_id;
        END;
        CREATE TRIGGER memory_summaries_deleted AFTER DELETE ON messages BEGIN
          DELETE FROM memory_summaries
          WHERE conversation_id = OLD.conversation_id AND coalesce(OLD.answers_id, OLD.id) <= last_message_id;
        END;
        CREATE TRIGGER memory_summaries_reset AFTER UPDATE OF memory_starts_after ON conversations BEGIN
          DELETE FROM memory_summaries WHERE conversation_id = NEW.id;
        END;
        ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'answer' CHECK (kind IN ('answer', 'summary'));
      `);
    },
  },
  {
    version: 16,
    name: "direct messages' tokens per day, kept as a server's are; the day's total over every place",
    // DM_DAILY_TOKENS summed the day's DM runs: a /forget-me or the retention sweep deleting them
    // gave their tokens back. They are counted as a server's (its id "@me", directMessagesServerId)
    // by the same triggers, and a run's tokens stay counted whatever deletes it. TOTAL_DAILY_TOKENS
    // reads the day's rows of every place: by day.
    up(db) {
      const place = `coalesce(c.guild_id, CASE WHEN c.key LIKE 'discord:%' THEN '@me' END)`;
      db.exec(`
        DROP TRIGGER runs_usage_on_insert;
        DROP TRIGGER runs_usage_on_update;
        CREATE TRIGGER runs_usage_on_insert AFTER INSERT ON runs WHEN NEW.total_tokens <> 0 BEGIN
          INSERT INTO guild_usage_days (guild_id, day, tokens)
            SELECT ${place}, NEW.started_at / 86400000, NEW.total_tokens FROM conversations c WHERE c.id = NEW.conversation_id AND ${place} IS NOT NULL
            ON CONFLICT (guild_id, day) DO UPDATE SET tokens = tokens + excluded.tokens;
        END;
        CREATE TRIGGER runs_usage_on_update AFTER UPDATE OF total_tokens ON runs WHEN NEW.total_tokens <> OLD.total_tokens BEGIN
          INSERT INTO guild_usage_days (guild_id, day, tokens)
            SELECT ${place}, NEW.started_at / 86400000, NEW.total_tokens - OLD.total_tokens FROM conversations c WHERE c.id = NEW.conversation_id AND ${place} IS NOT NULL
            ON CONFLICT (guild_id, day) DO UPDATE SET tokens = tokens + excluded.tokens;
        END;
        INSERT INTO guild_usage_days (guild_id, day, tokens)
          SELECT '@me', r.started_at / 86400000, sum(r.total_tokens) FROM runs r JOIN conversations c ON c.id = r.conversation_id
          WHERE c.guild_id IS NULL AND c.key LIKE 'discord:%' GROUP BY r.started_at / 86400000 HAVING sum(r.total_tokens) <> 0;
        CREATE INDEX guild_usage_days_by_day ON guild_usage_days (day);
      `);
    },
  },
  {
    version: 17,
    name: 'read once: cached prompt tokens per model call and per run; where the memory window starts',
    // Of a call's prompt tokens, those the server took from its cache (OpenAI's and vLLM's
    // usage.prompt_tokens_details.cached_tokens, llama.cpp's timings.cache_n): null on a step where
    // the server did not say. Runs before this version say nothing of their cache: 0.
    // A conversation's window starts at the message of conversation order window_starts_at (0: where
    // memory starts), set for the budget window_budget: it moves in steps (src/memory/window-start.ts).
    up(db) {
      db.exec(`
        ALTER TABLE steps ADD COLUMN cached_tokens INTEGER;
        ALTER TABLE runs ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN window_starts_at INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN window_budget INTEGER NOT NULL DEFAULT 0;
      `);
    },
  },
  {
    version: 18,
    name: "members remembered: the facts a member asked the bot to keep, per server ('@me': their direct messages)",
    // Read only by the member's own runs and /memory; deleted by /memory forget, /forget-me and
    // MESSAGE_RETENTION_DAYS (db/retention.ts). Moderators have no command that reads them.
    up(db) {
      db.exec(`
        CREATE TABLE member_facts (
          id INTEGER PRIMARY KEY,
          guild_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          fact TEXT NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX member_facts_by_member ON member_facts (guild_id, user_id, id);
        CREATE INDEX member_facts_by_age ON member_facts (created_at);
      `);
    },
  },
  {
    version: 19,
    name: 'schedules: prompts moderators set to run at times, and each due time claimed once',
    // A schedule's next due time is next_run_at (null while paused). A pass claims a due time by
    // moving next_run_at past now and inserting its schedule_runs row, in one transaction: the
    // UNIQUE (schedule_id, due_at) makes a time run once across processes and restarts. The row
    // then goes from claimed (header not yet posted, its conversation not yet stored) to queued
    // (a normal run's message is stored: the run lifecycle owes it from then on; its conversation is
    // keyed by header_id, the header message's id) or failed. model and persona (null: the channel's)
    // become the run's thread's own settings.
    up(db) {
      db.exec(`
        CREATE TABLE schedules (
          id INTEGER PRIMARY KEY,
          guild_id TEXT NOT NULL,
          channel_id TEXT NOT NULL,
          name TEXT NOT NULL,
          prompt TEXT NOT NULL,
          when_text TEXT NOT NULL,
          cron TEXT NOT NULL,
          time_zone TEXT NOT NULL,
          post_as TEXT NOT NULL CHECK (post_as IN ('thread', 'message')),
          model TEXT,
          persona TEXT,
          created_by_id TEXT NOT NULL,
          created_by_name TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          next_run_at INTEGER,
          paused_at INTEGER
        );
        CREATE INDEX schedules_due ON schedules (next_run_at) WHERE next_run_at IS NOT NULL;
        CREATE INDEX schedules_by_guild ON schedules (guild_id);
        CREATE TABLE schedule_runs (
          id INTEGER PRIMARY KEY,
          schedule_id INTEGER NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
          due_at INTEGER NOT NULL,
          missed INTEGER NOT NULL DEFAULT 0,
          claimed_at INTEGER NOT NULL,
          claimed_by TEXT,
          attempts INTEGER NOT NULL DEFAULT 0,
          state TEXT NOT NULL CHECK (state IN ('claimed', 'queued', 'failed')),
          header_id TEXT,
          error TEXT,
          UNIQUE (schedule_id, due_at)
        );
        CREATE INDEX schedule_runs_open ON schedule_runs (state) WHERE state = 'claimed';
      `);
    },
  },
  {
    version: 20,
    name: "/summarize's catch-up runs: a run kind of their own, and whose words each one read",
    // A catch-up run (commands/summarize.ts) reads a channel's history from Discord, not from the
    // database: the authors it read are kept beside it (catch_up_authors), so that /forget-me finds
    // the runs whose summary may hold a member's words (db/catch-up-runs.ts). The kind's CHECK gains
    // a value: SQLite cannot alter a constraint, and a loosened CHECK that every row already passes
    // is the case its docs give for editing the schema text in place (db/schema-text-edit.ts). The
    // authors keep the run's server (null: a DM), by which npm run move-server moves them after its runs.
    up(db) {
      widenRunKinds(db);
      db.exec(`
        CREATE TABLE catch_up_authors (
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          author_id TEXT NOT NULL,
          guild_id TEXT,
          PRIMARY KEY (run_id, author_id)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX catch_up_authors_by_author ON catch_up_authors (author_id);
      `);
    },
  },
  {
    version: 21,
    name: 'reply chains: the conversations answered in their channel, found by channel',
    // A reply to one of the bot's answers where no thread could be made carries its conversation on
    // (db/conversations.ts answeredWith): the few conversations held in a channel are found by this
    // index, and their runs by runs_by_conversation, never by a scan of every run.
    up(db) {
      db.exec(`CREATE INDEX conversations_in_channel ON conversations (channel_id) WHERE thread_id IS NULL;`);
    },
  },
  {
    version: 22,
    name: 'repair: a database made while main had migration 21 but not yet 19 and 20 gets them',
    // For a few minutes of 2026-11-29 main numbered its migrations 18 and 21 before 19 and 20 were
    // merged in: a database (or backup) made then is at 21, and `migrate` skips what is below its
    // user_version. Each is run here if its table is missing (and is a no-op otherwise).
    up(db) {
      const has = (table: string) =>
        db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) !== undefined;
      for (const [version, table] of [
        [19, 'schedules'],
        [20, 'catch_up_authors'],
      ] as const)
        if (!has(table)) migrations.find((migration) => migration.version === version)!.up(db);
    },
  },
  {
    version: 23,
    name: "the server's knowledge: documents, their chunks, and the chunks' full-text index",
    // A document is one source (a file, a URL, a Discord message) in one server, or in one channel
    // of it (channel_id); adding the same source again replaces it (UNIQUE guild_id, source_key).
    // Its chunks keep their order (position) and the heading they fall under. The FTS5 index is
    // contentless with deletes (https://www.sqlite.org/fts5.html#contentless_delete_tables, SQLite
    // 3.43): it holds no copy of the words, only the index, kept in step by triggers, with the
    // porter stemmer over unicode61 and 'secure-delete' on as for messages_fts (migration 11), so a
    // removed document leaves no terms behind. Its `place` column holds the chunk's server and
    // channel as tokens ('g<guild> c<channel>', 'cserver' for a server-wide document): a search
    // names them in its MATCH and FTS5 alone finds the place's chunks, with no join per match.
    up(db) {
      db.exec(`
        CREATE TABLE knowledge_documents (
          id INTEGER PRIMARY KEY,
          guild_id TEXT NOT NULL,
          channel_id TEXT,
          source_kind TEXT NOT NULL CHECK (source_kind IN ('file', 'url', 'message')),
          source_key TEXT NOT NULL,
          title TEXT NOT NULL,
          link TEXT,
          added_by TEXT NOT NULL,
          author_id TEXT,
          characters INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          embedding_model TEXT,
          UNIQUE (guild_id, source_key)
        ) STRICT;
        CREATE INDEX knowledge_documents_by_author ON knowledge_documents (author_id) WHERE author_id IS NOT NULL;
        CREATE INDEX knowledge_documents_by_adder ON knowledge_documents (added_by);
        CREATE TABLE knowledge_chunks (
          id INTEGER PRIMARY KEY,
          document_id INTEGER NOT NULL REFERENCES knowledge_documents (id) ON DELETE CASCADE,
          guild_id TEXT NOT NULL,
          position INTEGER NOT NULL,
          heading TEXT,
          text TEXT NOT NULL,
          UNIQUE (document_id, position)
        ) STRICT;
        CREATE INDEX knowledge_chunks_by_guild ON knowledge_chunks (guild_id);
        CREATE VIRTUAL TABLE knowledge_fts USING fts5(heading, text, place, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2');
        INSERT INTO knowledge_fts (knowledge_fts, rank) VALUES ('secure-delete', 1);
        CREATE TRIGGER knowledge_fts_insert AFTER INSERT ON knowledge_chunks BEGIN
          INSERT INTO knowledge_fts (rowid, heading, text, place) VALUES (
            new.id, coalesce(new.heading, ''), new.text,
            'g' || new.guild_id || ' ' || coalesce((SELECT 'c' || channel_id FROM knowledge_documents WHERE id = new.document_id), 'cserver')
          );
        END;
        CREATE TRIGGER knowledge_fts_delete AFTER DELETE ON knowledge_chunks BEGIN
          DELETE FROM knowledge_fts WHERE rowid = old.id;
        END;
      `);
    },
  },
  {
    version: 24,
    name: "the server's knowledge: each chunk's embedding, and the model that made it",
    // Vectors are float32 BLOBs (sqlite-vec's own format, https://alexgarcia.xyz/sqlite-vec/api-reference.html#vec_f32),
    // read by its distance functions when the extension is loaded; kept in a plain table, not a
    // vec0 virtual table, so that the database opens, backs up and restores without the extension,
    // and its dimensions follow whatever model the operator names. The model is kept per row:
    // a changed EMBEDDING_MODEL finds what it must embed again. The chunk's server and channel are
    // kept beside its vector, so that a search reads this table alone for the place's vectors.
    up(db) {
      db.exec(`
        CREATE TABLE knowledge_embeddings (
          chunk_id INTEGER PRIMARY KEY REFERENCES knowledge_chunks (id) ON DELETE CASCADE,
          guild_id TEXT NOT NULL,
          channel_id TEXT,
          model TEXT NOT NULL,
          vector BLOB NOT NULL
        ) STRICT;
        CREATE INDEX knowledge_embeddings_by_guild ON knowledge_embeddings (guild_id, model);
      `);
    },
  },
  {
    version: 25,
    name: "reminders become members' one-off schedules, claimed by the one scheduler",
    // A schedule gains a kind: 'routine' (a moderator's /schedule) or 'reminder' (a member's
    // remind_me: due once, its owner the member, posted as a message that mentions them). A reminder
    // may be set in a DM (no server) and has no cron: both NOT NULLs are dropped by editing the
    // schema text in place (db/schema-text-edit.ts), which keeps any column another migration added.
    // A claimed time gains the state 'posted' (a reminder's message is in its channel), the wait
    // before its next attempt (retry_at) and the text its attempts post (posted_text). The old
    // reminders are copied in (db/reminders-to-schedules.ts) and their table dropped.
    // And forgets gain the index /summarize's record looks a member's forget up by (db/catch-up-runs.ts
    // forgottenSince), which scanned the whole table before. And a stored message says whether it is
    // a schedule's prompt (messages.scheduled), so that its run, queued again from the database after
    // a restart, still gets no member's facts.
    up(db) {
      loosenSchemaText(db, 'schedules', 'guild_id TEXT NOT NULL,', 'guild_id TEXT,');
      loosenSchemaText(db, 'schedules', 'cron TEXT NOT NULL,', 'cron TEXT,');
      loosenSchemaText(
        db,
        'schedule_runs',
        "CHECK (state IN ('claimed', 'queued', 'failed'))",
        "CHECK (state IN ('claimed', 'queued', 'posted', 'failed'))",
      );
      db.exec(`
        ALTER TABLE schedules ADD COLUMN kind TEXT NOT NULL DEFAULT 'routine' CHECK (kind IN ('routine', 'reminder'));
        ALTER TABLE schedule_runs ADD COLUMN retry_at INTEGER;
        ALTER TABLE schedule_runs ADD COLUMN posted_text TEXT;
        CREATE INDEX schedules_by_owner ON schedules (created_by_id, kind);
        CREATE INDEX IF NOT EXISTS forgets_by_member ON forgets (guild_id, user_id, forgotten_at);
        ALTER TABLE messages ADD COLUMN scheduled INTEGER NOT NULL DEFAULT 0 CHECK (scheduled IN (0, 1));
      `);
      remindersToSchedules(db);
    },
  },
  {
    version: 26,
    name: "the server's knowledge: when a document was last replaced",
    // A document replaced by its source again (an edited message, a file added again) keeps its
    // created_at, from which retention counts (db/knowledge.ts store); updated_at says when its
    // words last changed, for /knowledge list. NULL: never replaced.
    up(db) {
      db.exec('ALTER TABLE knowledge_documents ADD COLUMN updated_at INTEGER');
    },
  },
];

export const latestVersion = migrations.at(-1)?.version ?? 0;
