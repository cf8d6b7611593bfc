import type { Database } from 'better-sqlite3';
import { ftsTerms } from './search.ts';

/** The connection src/knowledge is handed (it never imports better-sqlite3 itself). */
export type KnowledgeDatabase = Database;

/** A document as stored (migrations 23 and 26), with its chunks counted. */
export interface KnowledgeDocumentRow {
  id: number;
  guild_id: string;
  channel_id: string | null;
  source_kind: 'file' | 'url' | 'message';
  source_key: string;
  title: string;
  link: string | null;
  added_by: string;
  author_id: string | null;
  characters: number;
  /** When it was first added: a replace keeps it (retention counts from it). */
  created_at: number;
  /** When a replace last changed it; null: never replaced. */
  updated_at: number | null;
  embedding_model: string | null;
  chunks: number;
}

type NewKnowledgeDocument = Omit<KnowledgeDocumentRow, 'id' | 'chunks' | 'embedding_model' | 'updated_at'>;

/** A chunk to store: its heading (path) and text; its position is its index. */
interface NewKnowledgeChunk {
  heading: string | null;
  text: string;
}

/** A chunk as a search returns it, with its document's title, link and kind. */
interface KnowledgeChunkRow {
  id: number;
  document_id: number;
  position: number;
  heading: string | null;
  text: string;
  title: string;
  link: string | null;
  source_kind: 'file' | 'url' | 'message';
}

/** What storing a document came to: stored (replacing the same source or not), or over the server's cap. */
type StoreOutcome =
  | { stored: true; documentId: number; chunkIds: number[]; replaced: boolean }
  | { stored: false; serverCharacters: number };

/** Where a search looks: the server's documents, and those of the channels named. */
export interface KnowledgePlace {
  guildId: string;
  channelIds: readonly string[];
}

/** The documents a place sees: the server-wide ones and those of its channels (`d` the documents' alias). */
const seenIn = `d.guild_id = :guild AND (d.channel_id IS NULL OR d.channel_id IN (SELECT value FROM json_each(:channels)))`;

/** A few English words too common to rank by; dropped from a search's terms (kept if nothing else is left). */
const stopWords = new Set(
  'a an and are as at be by for from has have how i in is it its of on or that the this to was were what when where which who why will with you your do does can'.split(
    ' ',
  ),
);

/**
 * What a person or the model typed as an FTS5 query that is never a syntax error: each word quoted
 * (ftsTerms), joined by OR so that a passage matching some of them is found, BM25 ranking those
 * matching more and rarer words first.
 */
function knowledgeFtsQuery(place: KnowledgePlace, text: string): string | null {
  const terms = ftsTerms(text, 64);
  const kept = terms.filter((term) => !stopWords.has(term.slice(1, -1).toLowerCase()));
  const chosen = (kept.length > 0 ? kept : terms).slice(0, 24);
  if (chosen.length === 0) return null;
  // The place's tokens, as the insert trigger of migration 23 writes them; quoted as the words are.
  const guild = `"g${quote(place.guildId)}"`;
  const channels = ['"cserver"', ...place.channelIds.map((id) => `"c${quote(id)}"`)];
  return `place : ${guild} AND place : (${channels.join(' OR ')}) AND {heading text} : (${chosen.join(' OR ')})`;
}

const quote = (text: string) => text.replace(/"/g, '""');

/** The server's knowledge: documents, chunks, the full-text index, and the chunks' embeddings. */
export function createKnowledgeQueries(db: Database) {
  const documents = documentQueries(db);
  return {
    ...documents,
    ...searchQueries(db),
    ...embeddingQueries(db),
  };
}

function documentQueries(db: Database) {
  const columns = `d.*, (SELECT count(*) FROM knowledge_chunks c WHERE c.document_id = d.id) AS chunks`;
  const bySource = db.prepare<[string, string], { id: number; characters: number; created_at: number }>(
    'SELECT id, characters, created_at FROM knowledge_documents WHERE guild_id = ? AND source_key = ?',
  );
  const serverCharacters = db
    .prepare<[string], number>('SELECT coalesce(sum(characters), 0) FROM knowledge_documents WHERE guild_id = ?')
    .pluck();
  const insertDocument = db.prepare<NewKnowledgeDocument & { updated_at: number | null }>(
    `INSERT INTO knowledge_documents (guild_id, channel_id, source_kind, source_key, title, link, added_by, author_id, characters, created_at, updated_at)
     VALUES (:guild_id, :channel_id, :source_kind, :source_key, :title, :link, :added_by, :author_id, :characters, :created_at, :updated_at)`,
  );
  const insertChunk = db.prepare<[number, string, number, string | null, string]>(
    'INSERT INTO knowledge_chunks (document_id, guild_id, position, heading, text) VALUES (?, ?, ?, ?, ?)',
  );
  const removeById = db.prepare<[number, string]>('DELETE FROM knowledge_documents WHERE id = ? AND guild_id = ?');
  const removeBySource = db.prepare<[string, string]>(
    'DELETE FROM knowledge_documents WHERE guild_id = ? AND source_key = ?',
  );
  const listAll = db.prepare<[string], KnowledgeDocumentRow>(
    `SELECT ${columns} FROM knowledge_documents d WHERE d.guild_id = ? ORDER BY d.id`,
  );
  const listChannel = db.prepare<[string, string | null], KnowledgeDocumentRow>(
    `SELECT ${columns} FROM knowledge_documents d WHERE d.guild_id = ? AND d.channel_id IS ? ORDER BY d.id`,
  );
  const bySourceKey = db.prepare<[string, string], KnowledgeDocumentRow>(
    `SELECT ${columns} FROM knowledge_documents d WHERE d.guild_id = ? AND d.source_key = ?`,
  );
  const byId = db.prepare<[number], KnowledgeDocumentRow>(
    `SELECT ${columns} FROM knowledge_documents d WHERE d.id = ?`,
  );
  const has = db
    .prepare<{ guild: string; channels: string }, number>(`SELECT 1 FROM knowledge_documents d WHERE ${seenIn} LIMIT 1`)
    .pluck();
  const byAuthor = db.prepare<[string]>('DELETE FROM knowledge_documents WHERE author_id = ?');
  const byAuthorIn = db.prepare<[string, string]>(
    'DELETE FROM knowledge_documents WHERE author_id = ? AND guild_id = ?',
  );
  // One transaction, so that two adds in one server cannot both pass its cap.
  const store = db.transaction(
    (document: NewKnowledgeDocument, chunks: readonly NewKnowledgeChunk[], maxServerCharacters: number) => {
      const previous = bySource.get(document.guild_id, document.source_key);
      const used = serverCharacters.get(document.guild_id)! - (previous?.characters ?? 0);
      if (used + document.characters > maxServerCharacters)
        return { stored: false, serverCharacters: used } satisfies StoreOutcome;
      if (previous) removeById.run(previous.id, document.guild_id);
      // A replaced source (an edited message, a file added again) keeps the date it was first
      // added: retention (MESSAGE_RETENTION_DAYS) counts from it, not from the last edit.
      const dates = previous
        ? { created_at: previous.created_at, updated_at: document.created_at }
        : { created_at: document.created_at, updated_at: null };
      const documentId = Number(insertDocument.run({ ...document, ...dates }).lastInsertRowid);
      const chunkIds = chunks.map((chunk, position) =>
        Number(insertChunk.run(documentId, document.guild_id, position, chunk.heading, chunk.text).lastInsertRowid),
      );
      return { stored: true, documentId, chunkIds, replaced: previous !== undefined } satisfies StoreOutcome;
    },
  );
  return {
    /**
     * Stores a document and its chunks, replacing the document of the same source in that server
     * (keeping its `created_at`), unless the server's documents would then hold more than `maxServerCharacters`.
     */
    store: (document: NewKnowledgeDocument, chunks: readonly NewKnowledgeChunk[], maxServerCharacters: number) =>
      store.immediate(document, chunks, maxServerCharacters) as StoreOutcome,
    /** Removes a document of the server (its chunks, index rows and embeddings with it); false when none is. */
    remove: (guildId: string, documentId: number) => removeById.run(documentId, guildId).changes > 0,
    removeSource: (guildId: string, sourceKey: string) => removeBySource.run(guildId, sourceKey).changes > 0,
    /** The server's documents, oldest first; with `channelId` given, those scoped to it (null: server-wide ones). */
    list: (guildId: string, channelId?: string | null) =>
      channelId === undefined ? listAll.all(guildId) : listChannel.all(guildId, channelId),
    document: (documentId: number) => byId.get(documentId),
    /** The server's document of a source (its key, unique in the server), if there is one. */
    documentOfSource: (guildId: string, sourceKey: string) => bySourceKey.get(guildId, sourceKey),
    /** Whether a place (the server, and the channels named) has any document. */
    has: (place: KnowledgePlace) =>
      has.get({ guild: place.guildId, channels: JSON.stringify(place.channelIds) }) !== undefined,
    serverCharacters: (guildId: string) => serverCharacters.get(guildId)!,
    /** Removes the documents whose words are the member's (messages they wrote), in one server or all; how many went. */
    forgetAuthor: (authorId: string, guildId: string | null) =>
      (guildId === null ? byAuthor.run(authorId) : byAuthorIn.run(authorId, guildId)).changes,
  };
}

function searchQueries(db: Database) {
  // The place is in the MATCH (knowledgeFtsQuery): FTS5 alone finds its chunks; the place's column weighs nothing.
  const bm25 = db
    .prepare<[string, number], number>(
      'SELECT rowid FROM knowledge_fts WHERE knowledge_fts MATCH ? ORDER BY bm25(knowledge_fts, 2.0, 1.0, 0.0) LIMIT ?',
    )
    .pluck();
  const chunk = db.prepare<[number], KnowledgeChunkRow>(
    `SELECT c.id, c.document_id, c.position, c.heading, c.text, d.title, d.link, d.source_kind
     FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id WHERE c.id = ?`,
  );
  const chunksOf = db.prepare<[number], { id: number; heading: string | null; text: string }>(
    'SELECT id, heading, text FROM knowledge_chunks WHERE document_id = ? ORDER BY position',
  );
  return {
    /** The chunks the place sees that match the words, best first by BM25 (the heading weighs double). */
    keywordSearch: (place: KnowledgePlace, text: string, limit: number): number[] => {
      const query = knowledgeFtsQuery(place, text);
      return query === null ? [] : bm25.all(query, limit);
    },
    /** Chunks by id, in the order asked, with their documents' title and link (ids gone meanwhile left out). */
    chunks: (ids: readonly number[]) => ids.map((id) => chunk.get(id)).filter((row) => row !== undefined),
    chunksOf: (documentId: number) => chunksOf.all(documentId),
  };
}

function embeddingQueries(db: Database) {
  // From the chunk's row: a chunk gone meanwhile (its document replaced or removed) inserts nothing.
  const insert = db.prepare<[string, Buffer, number]>(
    `INSERT OR REPLACE INTO knowledge_embeddings (chunk_id, guild_id, channel_id, model, vector)
     SELECT c.id, c.guild_id, d.channel_id, ?, ? FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id WHERE c.id = ?`,
  );
  const insertMany = db.transaction((model: string, vectors: readonly { chunkId: number; vector: Float32Array }[]) => {
    for (const { chunkId, vector } of vectors)
      insert.run(model, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), chunkId);
  });
  const markEmbedded = db.prepare<[string | null, number]>(
    'UPDATE knowledge_documents SET embedding_model = ? WHERE id = ?',
  );
  const dropOf = db.prepare<[number]>(
    'DELETE FROM knowledge_embeddings WHERE chunk_id IN (SELECT id FROM knowledge_chunks WHERE document_id = ?)',
  );
  const stale = db
    .prepare<[string], number>(
      'SELECT id FROM knowledge_documents WHERE embedding_model IS NULL OR embedding_model <> ? ORDER BY id',
    )
    .pluck();
  return {
    /** Keeps chunks' vectors (float32, sqlite-vec's format); a chunk gone meanwhile is skipped. */
    storeEmbeddings: (model: string, vectors: readonly { chunkId: number; vector: Float32Array }[]) =>
      insertMany(model, vectors),
    /** Says which model embedded a document's chunks (null: not, or not all). */
    markEmbedded: (documentId: number, model: string | null) => markEmbedded.run(model, documentId).changes > 0,
    /** Drops a document's vectors, before it is embedded again. */
    dropEmbeddings: (documentId: number) => dropOf.run(documentId).changes,
    /** The documents not embedded by `model` (by another, or not at all), oldest first. */
    staleDocuments: (model: string) => stale.all(model),
  };
}

export type KnowledgeQueries = ReturnType<typeof createKnowledgeQueries>;
