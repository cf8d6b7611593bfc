/**
 * The server's knowledge: documents moderators added (files, URLs, Discord messages), cut into
 * chunks, searched by BM25 over SQLite FTS5 always and, when an embedding model is named, by
 * vectors too (sqlite-vec), the two lists fused by reciprocal rank. Per server: no search, list or
 * removal ever reaches another server's documents. Discord-free: the commands and the
 * search_knowledge tool build on it.
 */
import {
  createKnowledgeQueries,
  type KnowledgeDatabase,
  type KnowledgeDocumentRow,
  type KnowledgeQueries,
} from '../../db/knowledge.ts';
import { openVectorSearch, type VectorExtensionLoader, type VectorSearch } from '../../db/knowledge-vectors.ts';
import { type Logger, silentLogger } from '../agent/logger.ts';
import { chunkDocument } from './chunk-document.ts';
import { EmbeddingsBreaker } from './embeddings-breaker.ts';
import { type EmbeddingsClient, isEmbeddingsOutage } from './embeddings-client.ts';
import type { ExtractedDocument } from './extract-text.ts';
import { embedDocument, type EmbedProgress } from './embed-document.ts';
import { fuseByRank } from './reciprocal-rank.ts';

export type KnowledgeSourceKind = 'file' | 'url' | 'message';
export type KnowledgeSource = {
  kind: KnowledgeSourceKind;
  /** Unique per server: 'url:https://…', 'message:<channelId>/<messageId>', 'file:<name>'. Adding it again replaces it. */
  key: string;
  title: string;
  link: string | null;
};
export type KnowledgeScope = {
  guildId: string;
  /** null: the whole server; else that channel (and its threads). */
  channelId: string | null;
};
export type AddKnowledge = KnowledgeScope & {
  source: KnowledgeSource;
  /** Who added it (a moderator's user id). */
  addedBy: string;
  /** The member whose words these are, for a message; null otherwise. */
  authorId: string | null;
  document: ExtractedDocument;
  onProgress?: EmbedProgress;
};
export type AddOutcome =
  | { ok: true; documentId: number; chunks: number; replaced: boolean; embedded: boolean }
  | { ok: false; refused: 'empty' | 'document-too-large' | 'server-full'; message: string };
export type KnowledgeDocument = {
  id: number;
  guildId: string;
  channelId: string | null;
  source: KnowledgeSource;
  addedBy: string;
  authorId: string | null;
  chunks: number;
  characters: number;
  /** When it was first added (a replace of its source keeps it). */
  createdAt: number;
  /** When a replace of its source (an edited message, a file added again) last changed it; null: never. */
  updatedAt: number | null;
  /** The model its chunks were embedded with; null: not embedded. */
  embeddingModel: string | null;
  /** Embeddings are on and this document's were made by another model, or not made: reembedStale will. */
  embeddingStale: boolean;
};
export type Passage = {
  /** 1-based, as shown to the model. */
  number: number;
  documentId: number;
  chunkId: number;
  title: string;
  heading: string | null;
  text: string;
  link: string | null;
  sourceKind: KnowledgeSourceKind;
};
export type KnowledgeSearch = { guildId: string; channelIds: string[]; query: string; limit: number };

export interface KnowledgeOptions {
  /** null: BM25 alone. */
  embeddings: EmbeddingsClient | null;
  maxDocumentCharacters: number;
  maxServerCharacters: number;
  /** The clock of documents' dates and of the embedding breaker's cooldown. */
  now?: () => number;
  logger?: Logger;
  /** How long vectors are skipped after the embedding server failed (embeddingsCooldownMs when not given). */
  embeddingsCooldownMs?: number;
  /** How sqlite-vec is loaded (tests give one that fails). */
  loadVectorExtension?: VectorExtensionLoader;
}

/** How many candidates each ranking gives before they are fused. */
const candidates = 50;

export class KnowledgeBase {
  private readonly queries: KnowledgeQueries;
  private readonly vectors: VectorSearch | null;
  private readonly embeddings: EmbeddingsClient | null;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly breaker: EmbeddingsBreaker;
  /** The re-embedding pass under way, if one is: a second caller joins it. */
  private reembedding: Promise<number> | null = null;

  constructor(
    db: KnowledgeDatabase,
    private readonly options: KnowledgeOptions,
  ) {
    this.queries = createKnowledgeQueries(db);
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.embeddings = options.embeddings;
    this.vectors = this.embeddings === null ? null : this.openVectors(db);
    this.breaker = new EmbeddingsBreaker({
      now: this.now,
      logger: this.logger,
      cooldownMs: options.embeddingsCooldownMs,
      // The documents added while the server was down were kept unembedded: embedded now, in the background.
      onClose: () => void this.reembedInBackground(),
    });
  }

  /** Whether searches use vectors too (an embedding model named, and sqlite-vec loaded). */
  get vectorSearch(): boolean {
    return this.vectors !== null;
  }

  private openVectors(db: KnowledgeDatabase): VectorSearch | null {
    const opened = openVectorSearch(db, this.options.loadVectorExtension);
    if (opened.ok) return opened.search;
    this.logger.warn(
      { err: opened.error },
      'sqlite-vec could not be loaded: the knowledge is searched by keywords (BM25) alone',
    );
    return null;
  }

  /** Chunks and stores a document (replacing the same source in that server), then embeds it in batches. */
  async add(request: AddKnowledge): Promise<AddOutcome> {
    const chunks = chunkDocument(request.document);
    const characters = chunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
    if (characters === 0) return { ok: false, refused: 'empty', message: 'It holds no text to add.' };
    const { maxDocumentCharacters, maxServerCharacters } = this.options;
    if (characters > maxDocumentCharacters)
      return {
        ok: false,
        refused: 'document-too-large',
        message: `It holds ${count(characters)} characters of text: the most one document may hold is ${count(maxDocumentCharacters)}.`,
      };
    const stored = this.queries.store(
      {
        guild_id: request.guildId,
        channel_id: request.channelId,
        source_kind: request.source.kind,
        source_key: request.source.key,
        title: request.source.title,
        link: request.source.link,
        added_by: request.addedBy,
        author_id: request.authorId,
        characters,
        created_at: this.now(),
      },
      chunks,
      maxServerCharacters,
    );
    if (!stored.stored)
      return {
        ok: false,
        refused: 'server-full',
        message: `The server's knowledge holds ${count(stored.serverCharacters)} characters; with this document's ${count(characters)} it would pass its limit of ${count(maxServerCharacters)}. Remove documents first.`,
      };
    // While the embedding server is known to be down, the document waits (stale) for it rather than the moderator.
    const embedded =
      this.breaker.allows() && (await this.embed(stored.documentId, request.guildId, request.onProgress));
    return { ok: true, documentId: stored.documentId, chunks: chunks.length, replaced: stored.replaced, embedded };
  }

  /**
   * Embeds a stored document's chunks; false (the document kept, searched by BM25, stale until
   * reembedStale) when embeddings are off or fail. Tells the breaker how it went.
   */
  private async embed(documentId: number, guildId: string, onProgress?: EmbedProgress): Promise<boolean> {
    if (this.embeddings === null || this.vectors === null) return false;
    try {
      await embedDocument(this.queries, this.embeddings, documentId, onProgress);
      this.breaker.succeeded();
      return true;
    } catch (error) {
      this.breaker.failed(error, isEmbeddingsOutage(error));
      this.logger.warn({ err: error, guildId, documentId }, 'a knowledge document could not be embedded');
      return false;
    }
  }

  /** Removes one of the server's documents; false when it has none of that id. */
  remove(guildId: string, documentId: number): boolean {
    return this.queries.remove(guildId, documentId);
  }

  /** Removes the server's document of a source (a message deleted, say); false when there is none. */
  removeSource(guildId: string, sourceKey: string): boolean {
    return this.queries.removeSource(guildId, sourceKey);
  }

  /** The server's documents, oldest first; with `channelId`, those scoped there (null: the server-wide ones). */
  list(guildId: string, channelId?: string | null): KnowledgeDocument[] {
    return this.queries.list(guildId, channelId).map((row) => this.described(row));
  }

  /** The server's document of a source (a message's, say: `message:<channelId>/<messageId>`), if there is one. */
  documentOfSource(guildId: string, sourceKey: string): KnowledgeDocument | undefined {
    const row = this.queries.documentOfSource(guildId, sourceKey);
    return row === undefined ? undefined : this.described(row);
  }

  private described(row: KnowledgeDocumentRow): KnowledgeDocument {
    const model = this.vectors === null ? null : (this.embeddings?.model ?? null);
    return {
      id: row.id,
      guildId: row.guild_id,
      channelId: row.channel_id,
      source: { kind: row.source_kind, key: row.source_key, title: row.title, link: row.link },
      addedBy: row.added_by,
      authorId: row.author_id,
      chunks: row.chunks,
      characters: row.characters,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      embeddingModel: row.embedding_model,
      embeddingStale: model !== null && row.embedding_model !== model,
    };
  }

  /** Whether a place has knowledge: server-wide documents, or documents of one of its channels. */
  has(scope: { guildId: string; channelIds: string[] }): boolean {
    return this.queries.has(scope);
  }

  /** The passages best matching the query that the place sees, numbered from 1. */
  async search(request: KnowledgeSearch): Promise<Passage[]> {
    const keyword = this.queries.keywordSearch(request, request.query, candidates);
    const vector = await this.nearest(request);
    const ids = fuseByRank(vector === null ? [keyword] : [keyword, vector]).slice(0, request.limit);
    return this.queries.chunks(ids).map((row, index) => ({
      number: index + 1,
      documentId: row.document_id,
      chunkId: row.id,
      title: row.title,
      heading: row.heading,
      text: row.text,
      link: row.link,
      sourceKind: row.source_kind,
    }));
  }

  /**
   * The chunks nearest the query's vector; null when vectors are off, the breaker is open (the
   * embedding server failed lately), or the query could not be embedded (which the breaker logs
   * when it opens; another failure, such as a refused key, is logged here).
   */
  private async nearest(request: KnowledgeSearch): Promise<number[] | null> {
    const { embeddings, vectors } = this;
    if (embeddings === null || vectors === null || request.query.trim() === '' || !this.breaker.allows()) return null;
    let query: Float32Array;
    try {
      query = embeddings.embedQuery
        ? await embeddings.embedQuery(request.query)
        : (await embeddings.embed([request.query]))[0]!;
    } catch (error) {
      const outage = isEmbeddingsOutage(error);
      this.breaker.failed(error, outage);
      if (!outage)
        this.logger.warn({ err: error, guildId: request.guildId }, 'the knowledge search went on by keywords alone');
      return null;
    }
    this.breaker.succeeded();
    return vectors.nearest(request, embeddings.model, query, candidates).map((chunk) => chunk.id);
  }

  /**
   * Embeds again every document the current model did not embed (another model's, or none: a
   * failed embedding). Returns how many documents were embedded; one failing stops the pass (the
   * server is likely down), what is left stays stale for the next.
   */
  async reembedStale(onProgress?: (documents: number, total: number) => void): Promise<number> {
    this.reembedding ??= this.reembedPass(onProgress).finally(() => {
      this.reembedding = null;
    });
    return this.reembedding;
  }

  /**
   * reembedStale with what came of it logged, never thrown: at start (src/app/bot-services.ts), and
   * when the embedding server answers again after an outage.
   */
  async reembedInBackground(): Promise<void> {
    try {
      const documents = await this.reembedStale();
      if (documents > 0) this.logger.info({ documents }, 'knowledge embedded again with the embedding model now set');
    } catch (error) {
      this.logger.warn({ err: error }, 'the knowledge could not be embedded again');
    }
  }

  private async reembedPass(onProgress?: (documents: number, total: number) => void): Promise<number> {
    if (this.embeddings === null || this.vectors === null) return 0;
    const stale = this.queries.staleDocuments(this.embeddings.model);
    let done = 0;
    for (const documentId of stale) {
      const document = this.queries.document(documentId);
      if (document === undefined) continue;
      if (!(await this.embed(documentId, document.guild_id))) break;
      done += 1;
      onProgress?.(done, stale.length);
    }
    return done;
  }

  /**
   * `/forget-me`: removes the documents whose words are the member's (Discord messages they wrote,
   * added by anyone), in one server (or all: null). What a member added as a moderator (files,
   * URLs, others' messages) is the server's knowledge and stays. Returns how many went.
   */
  forgetAuthor(authorId: string, guildId: string | null = null): number {
    return this.queries.forgetAuthor(authorId, guildId);
  }
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
