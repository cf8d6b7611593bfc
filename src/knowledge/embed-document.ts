import type { KnowledgeQueries } from '../../db/knowledge.ts';
import type { EmbeddingsClient } from './embeddings-client.ts';

/** Told as a document's chunks are embedded: how many so far, of how many. */
export type EmbedProgress = (embedded: number, total: number) => void;

/** The text a chunk is embedded as: its heading path, then its text. */
function embeddingText(chunk: { heading: string | null; text: string }): string {
  return chunk.heading === null ? chunk.text : `${chunk.heading}\n\n${chunk.text}`;
}

/**
 * Embeds a stored document's chunks, a batch per request, each batch stored as it comes, and
 * marks the document embedded by the model once all are. Its old vectors go first (a model that
 * changed, or a pass cut short). Throws what the client throws; the document then stays unmarked
 * (stale), searched by BM25 until embedded again.
 */
export async function embedDocument(
  queries: KnowledgeQueries,
  client: EmbeddingsClient,
  documentId: number,
  onProgress?: EmbedProgress,
): Promise<void> {
  const chunks = queries.chunksOf(documentId);
  queries.markEmbedded(documentId, null);
  queries.dropEmbeddings(documentId);
  onProgress?.(0, chunks.length);
  for (let start = 0; start < chunks.length; start += client.batchSize) {
    const batch = chunks.slice(start, start + client.batchSize);
    const vectors = await client.embed(batch.map(embeddingText));
    queries.storeEmbeddings(
      client.model,
      batch.map((chunk, index) => ({ chunkId: chunk.id, vector: vectors[index]! })),
    );
    onProgress?.(start + batch.length, chunks.length);
  }
  queries.markEmbedded(documentId, client.model);
}
