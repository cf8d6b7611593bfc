/**
 * Which rows of the database belong to one Discord server (guild), table by table: what
 * `npm run move-server` moves from one database to another. Every table of the schema is in
 * `serverTables`, and test/db/move-server-tables.test.ts fails when one is not, so that whoever
 * adds a table decides here whether a server's data lives in it.
 */
import type { Database } from 'better-sqlite3';

/** How move-server treats a table. */
export type TableRule =
  /** Moved by db/move-server-conversations.ts with the server's conversations, integer ids remapped (see `conversationColumns`). */
  | { table: string; moves: 'with-conversations' }
  /**
   * Rows whose `guildColumn` is the server's id, copied as they are, less `idColumn` (an integer
   * id the target assigns afresh: nothing may refer to it).
   */
  | {
      table: string;
      moves: 'by-guild';
      guildColumn: string;
      idColumn?: string;
      /** Columns holding an id another by-guild table (listed before it) gave anew: column → that table. */
      remaps?: Record<string, string>;
    }
  /**
   * Rows that hang off one of the server's messages by `messageColumn` (its id, remapped on the
   * way, as is `conversationColumn`'s conversation id if the table keeps one), less `idColumn` (an
   * integer id the target assigns afresh: nothing may refer to it).
   */
  | { table: string; moves: 'by-message'; messageColumn: string; conversationColumn?: string; idColumn?: string }
  /** Not any one server's: stays in its database. */
  | { table: string; moves: 'never'; why: string };

/** Every table of the latest schema. A new table is one line here (a new kind of reference, a few more in the move's code). */
export const serverTables: readonly TableRule[] = [
  { table: 'conversations', moves: 'with-conversations' },
  { table: 'messages', moves: 'with-conversations' },
  { table: 'runs', moves: 'with-conversations' },
  { table: 'steps', moves: 'with-conversations' },
  { table: 'memory_summaries', moves: 'with-conversations' },
  { table: 'channel_cursors', moves: 'by-guild', guildColumn: 'guild_id' },
  // Routines and members' reminders set there (a reminder set in a DM has no server, and stays). Its
  // next time goes with it; the claims of times already run (schedule_runs) stay, named by the old id.
  { table: 'schedules', moves: 'by-guild', guildColumn: 'guild_id', idColumn: 'id' },
  // Copied after the runs, whose insert triggers add their tokens: the copy replaces those sums.
  { table: 'guild_usage_days', moves: 'by-guild', guildColumn: 'guild_id' },
  // Who set what where; runs name a persona by the id of its change, remapped with it (db/move-server.ts).
  { table: 'setting_changes', moves: 'by-guild', guildColumn: 'guild_id', idColumn: 'id' },
  // The record of each /forget-me (who, when, counts) goes with the server it was asked in.
  { table: 'forgets', moves: 'by-guild', guildColumn: 'guild_id', idColumn: 'id' },
  // Members' reports of answers, copied after the runs they name (their ids are kept).
  { table: 'answer_reports', moves: 'by-guild', guildColumn: 'guild_id', idColumn: 'id' },
  // Facts the server's members asked the bot to remember there (their DMs' facts, '@me', stay).
  { table: 'member_facts', moves: 'by-guild', guildColumn: 'guild_id', idColumn: 'id' },
  // Who each /summarize read (db/catch-up-runs.ts), copied after the runs they name (their ids are kept).
  { table: 'catch_up_authors', moves: 'by-guild', guildColumn: 'guild_id' },
  // The server's knowledge (src/knowledge): documents, their chunks (of the documents' new ids), the
  // chunks' vectors (of the chunks' new ids). The chunks' insert trigger indexes them in the target.
  { table: 'knowledge_documents', moves: 'by-guild', guildColumn: 'guild_id', idColumn: 'id' },
  {
    table: 'knowledge_chunks',
    moves: 'by-guild',
    guildColumn: 'guild_id',
    idColumn: 'id',
    remaps: { document_id: 'knowledge_documents' },
  },
  {
    table: 'knowledge_embeddings',
    moves: 'by-guild',
    guildColumn: 'guild_id',
    remaps: { chunk_id: 'knowledge_chunks' },
  },
  // Cards owed to the server's log channel: they name runs by their ids, which move unchanged.
  { table: 'log_outbox', moves: 'by-guild', guildColumn: 'guild_id', idColumn: 'id' },
  {
    table: 'message_images',
    moves: 'by-message',
    messageColumn: 'message_id',
    conversationColumn: 'conversation_id',
    idColumn: 'id',
  },
  // Flags of the server's questions and answers (their run ids move unchanged); one whose message was deleted stays.
  {
    table: 'content_flags',
    moves: 'by-message',
    messageColumn: 'message_id',
    conversationColumn: 'conversation_id',
    idColumn: 'id',
  },
  {
    table: 'instances',
    moves: 'never',
    why: 'processes of this database; those the moved runs name are copied, marked stopped',
  },
  {
    table: 'schedule_runs',
    moves: 'never',
    why: 'the claims of due times already started here; a moved schedule goes on from its next time',
  },
  { table: 'model_servers', moves: 'never', why: 'what each model server needs, for every server' },
  { table: 'messages_fts', moves: 'never', why: 'the full-text index, kept by triggers on messages' },
  { table: 'messages_fts_data', moves: 'never', why: "FTS5's shadow table" },
  { table: 'messages_fts_idx', moves: 'never', why: "FTS5's shadow table" },
  { table: 'messages_fts_docsize', moves: 'never', why: "FTS5's shadow table" },
  { table: 'messages_fts_config', moves: 'never', why: "FTS5's shadow table" },
  { table: 'knowledge_fts', moves: 'never', why: 'the knowledge index, kept by triggers on knowledge_chunks' },
  { table: 'knowledge_fts_data', moves: 'never', why: "FTS5's shadow table" },
  { table: 'knowledge_fts_idx', moves: 'never', why: "FTS5's shadow table" },
  { table: 'knowledge_fts_docsize', moves: 'never', why: "FTS5's shadow table" },
  { table: 'knowledge_fts_config', moves: 'never', why: "FTS5's shadow table" },
  { table: 'sqlite_sequence', moves: 'never', why: "SQLite's AUTOINCREMENT counters (the move raises messages')" },
];

/**
 * The columns of the tables moved with conversations, each either remapped (an integer id of the
 * target's, or a reference to one) or copied as it is. A column in neither fails the table test:
 * a new column that holds a message or conversation id must be remapped in db/move-server-conversations.ts.
 */
export const conversationColumns: Record<string, { remapped: readonly string[]; copied: readonly string[] }> = {
  conversations: {
    // The window's start is a message's order: set back to the start (0), the next run finds it again.
    remapped: ['id', 'memory_starts_after', 'window_starts_at', 'window_budget'],
    copied: [
      'key',
      'title',
      'guild_id',
      'channel_id',
      'thread_id',
      'started_by_id',
      'started_by_name',
      'created_at',
      'last_seen_message_id',
      'told_no_vision',
    ],
  },
  messages: {
    remapped: ['id', 'conversation_id', 'group_id', 'answers_id'],
    copied: [
      'run_id',
      'role',
      'author_id',
      'author_name',
      'content',
      'tool_calls',
      'tool_call_id',
      'discord_message_id',
      'created_at',
      'token_count',
      'scheduled',
    ],
  },
  runs: {
    // persona_version: the id of the setting change that set the persona (setting_changes, moved by guild).
    remapped: ['conversation_id', 'trigger_message_ids', 'persona_version'],
    copied: [
      'id',
      'instance_id',
      'status',
      'stop_reason',
      'model',
      'started_at',
      'ended_at',
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
      'error',
      'error_code',
      'posted_message_ids',
      'delivered_at',
      'resumed_from',
      'delivery',
      'live_message_ids',
      'live_pending',
      'model_name',
      'kind',
      'cached_tokens',
    ],
  },
  // Its range is of message ids (in conversation order): remapped with the messages.
  memory_summaries: {
    remapped: ['conversation_id', 'first_message_id', 'last_message_id'],
    copied: ['summary', 'tokens', 'stale', 'updated_at'],
  },
  steps: {
    remapped: ['id'],
    copied: [
      'run_id',
      'sequence',
      'kind',
      'model_step',
      'message',
      'tool_name',
      'tool_call_id',
      'arguments',
      'status',
      'result',
      'error',
      'error_kind',
      'note',
      'prompt_tokens',
      'completion_tokens',
      'cached_tokens',
      'duration_ms',
      'started_at',
      'ended_at',
    ],
  },
};

/** The tables of a database (sqlite_master), by name. */
export function tablesOf(db: Database): string[] {
  return db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
}

/** Tables of `db` that `rules` does not classify; the move refuses a database with any. */
export function unclassifiedTables(db: Database, rules: readonly TableRule[] = serverTables): string[] {
  const known = new Set(rules.map((rule) => rule.table));
  return tablesOf(db).filter((name) => !known.has(name));
}

/** A name in SQL, quoted. */
export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The table's column names, in order, but those in `except`. */
export function columnsOf(db: Database, table: string, except: readonly (string | undefined)[] = []): string[] {
  return (db.pragma(`table_info(${quoted(table)})`) as { name: string }[])
    .map((column) => column.name)
    .filter((name) => !except.includes(name));
}

/**
 * `FROM … WHERE …` of the server's rows of a moved table, `t` being the table and `@guild` the
 * server's id.
 */
export function serverRowsOf(rule: Exclude<TableRule, { moves: 'never' }>): string {
  const table = `${quoted(rule.table)} t`;
  const ofConversation = 'JOIN conversations c ON c.id = t.conversation_id WHERE c.guild_id = @guild';
  switch (rule.moves) {
    case 'by-guild':
      return `FROM ${table} WHERE t.${quoted(rule.guildColumn)} = @guild`;
    case 'by-message':
      return `FROM ${table} JOIN messages m ON m.id = t.${quoted(rule.messageColumn)} JOIN conversations c ON c.id = m.conversation_id WHERE c.guild_id = @guild`;
    case 'with-conversations':
      if (rule.table === 'conversations') return `FROM ${table} WHERE t.guild_id = @guild`;
      if (rule.table === 'steps')
        return `FROM ${table} JOIN runs r ON r.id = t.run_id JOIN conversations c ON c.id = r.conversation_id WHERE c.guild_id = @guild`;
      return `FROM ${table} ${ofConversation}`;
  }
}

/** A prepared insert of `columns` into `table` (`conflict`: an ON CONFLICT clause); takes a row, returns the new rowid. */
export function inserter(db: Database, table: string, columns: readonly string[], conflict = '') {
  const statement = db.prepare(
    `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ${conflict}`,
  );
  return (row: Record<string, unknown>) =>
    Number(statement.run(...columns.map((column) => row[column])).lastInsertRowid);
}

/** The rules of the tables that move, in the order they are copied. */
export function movedTables(rules: readonly TableRule[] = serverTables) {
  return rules.filter((rule): rule is Exclude<TableRule, { moves: 'never' }> => rule.moves !== 'never');
}
