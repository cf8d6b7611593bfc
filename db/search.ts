import type { Database } from 'better-sqlite3';

export interface SearchHit {
  id: number;
  conversation_title: string;
  role: 'user' | 'assistant';
  author_name: string | null;
  /** The matching part of the message, the matched words in **bold**. */
  snippet: string;
  created_at: number;
}

/**
 * Turns what a person or the model typed into an FTS5 query that cannot be a syntax error or an
 * operator: every word quoted, all of them required.
 */
function ftsQuery(text: string): string | null {
  const terms = ftsTerms(text, 16);
  return terms.length === 0 ? null : terms.join(' ');
}

/** The first `most` words of a text, each quoted as an FTS5 string: never a syntax error or an operator. */
export function ftsTerms(text: string, most: number): string[] {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.slice(0, most).map((word) => `"${word.replace(/"/g, '""')}"`);
}

/** Full-text search over messages, best matches first, in one conversation or one server. */
export function createSearchQueries(db: Database) {
  const columns = `m.id, c.title AS conversation_title, m.role, m.author_name, snippet(messages_fts, 0, '**', '**', '…', 16) AS snippet, m.created_at`;
  const inConversation = db.prepare<[string, string, number], SearchHit>(
    `SELECT ${columns} FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN conversations c ON c.id = m.conversation_id
     WHERE messages_fts MATCH ? AND c.key = ? AND m.id > c.memory_starts_after ORDER BY rank LIMIT ?`,
  );
  const inServer = db.prepare<[string, string, number], SearchHit>(
    `SELECT ${columns} FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN conversations c ON c.id = m.conversation_id
     WHERE messages_fts MATCH ? AND c.guild_id = ? ORDER BY rank LIMIT ?`,
  );
  return {
    inConversation: (conversationKey: string, text: string, limit: number) => {
      const query = ftsQuery(text);
      return query ? inConversation.all(query, conversationKey, limit) : [];
    },
    inServer: (guildId: string, text: string, limit: number) => {
      const query = ftsQuery(text);
      return query ? inServer.all(query, guildId, limit) : [];
    },
  };
}

export type SearchQueries = ReturnType<typeof createSearchQueries>;
