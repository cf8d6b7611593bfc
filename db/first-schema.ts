/**
 * The schema of version 1 (db/migrations.ts): conversations, their messages, runs with their steps,
 * and the processes that write them. What later versions changed is in the migrations after it.
 */
export const firstSchema = `
        CREATE TABLE instances (
          id TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          pid INTEGER NOT NULL,
          hostname TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          heartbeat_at INTEGER NOT NULL,
          stopped_at INTEGER
        ) STRICT;

        CREATE TABLE conversations (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          key TEXT NOT NULL UNIQUE,
          title TEXT NOT NULL,
          guild_id TEXT,
          channel_id TEXT,
          thread_id TEXT,
          started_by_id TEXT,
          started_by_name TEXT,
          created_at INTEGER NOT NULL,
          last_seen_message_id TEXT,
          memory_starts_after INTEGER NOT NULL DEFAULT 0
        ) STRICT;

        CREATE TABLE runs (
          id TEXT PRIMARY KEY,
          conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
          instance_id TEXT NOT NULL REFERENCES instances(id),
          trigger_message_ids TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('running', 'answered', 'stopped', 'failed', 'interrupted')),
          stop_reason TEXT,
          model TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          ended_at INTEGER,
          prompt_tokens INTEGER NOT NULL DEFAULT 0,
          completion_tokens INTEGER NOT NULL DEFAULT 0,
          total_tokens INTEGER NOT NULL DEFAULT 0,
          error TEXT,
          error_code TEXT,
          posted_message_ids TEXT NOT NULL DEFAULT '[]',
          delivered_at INTEGER,
          resumed_from TEXT REFERENCES runs(id) ON DELETE SET NULL
        ) STRICT;
        CREATE INDEX runs_by_conversation ON runs (conversation_id, started_at);
        CREATE INDEX runs_by_start ON runs (started_at);
        CREATE INDEX runs_running ON runs (instance_id) WHERE status = 'running';
        CREATE INDEX runs_interrupted ON runs (conversation_id) WHERE status = 'interrupted';
        CREATE INDEX runs_resumed_from ON runs (resumed_from) WHERE resumed_from IS NOT NULL;

        -- AUTOINCREMENT: an id is never reused after a deletion, since runs and memory refer to ids.
        CREATE TABLE messages (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
          run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
          role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
          author_id TEXT,
          author_name TEXT,
          content TEXT NOT NULL,
          tool_calls TEXT,
          tool_call_id TEXT,
          group_id INTEGER,
          answers_id INTEGER,
          discord_message_id TEXT UNIQUE,
          created_at INTEGER NOT NULL,
          token_count INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX messages_by_conversation ON messages (conversation_id, id);

        CREATE TABLE steps (
          id INTEGER PRIMARY KEY,
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          sequence INTEGER NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('model-call', 'tool-call', 'final-answer')),
          model_step INTEGER NOT NULL,
          message TEXT,
          tool_name TEXT,
          tool_call_id TEXT,
          arguments TEXT,
          status TEXT NOT NULL CHECK (status IN ('started', 'ok', 'error')),
          result TEXT,
          error TEXT,
          error_kind TEXT,
          note TEXT,
          prompt_tokens INTEGER,
          completion_tokens INTEGER,
          duration_ms REAL,
          started_at INTEGER NOT NULL,
          ended_at INTEGER,
          UNIQUE (run_id, sequence)
        ) STRICT;
      `;
