/**
 * Vector search over the knowledge's embeddings with sqlite-vec (https://github.com/asg017/sqlite-vec),
 * a loadable SQLite extension whose npm package carries the prebuilt binary for each platform
 * (sqlite-vec-linux-x64 and the like, optional dependencies: nothing is downloaded at install).
 * Loaded into the bot's connection at start; when it cannot be (another platform, a locked-down
 * SQLite), the knowledge is searched by BM25 alone. The vectors sit in a plain table (migration 24)
 * and are compared with `vec_distance_cosine` over the place's rows: an exact search, filtered by
 * server before any distance is computed.
 */
import type { Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { KnowledgePlace } from './knowledge.ts';

/** Loads the extension into a connection (sqlite-vec's own loader unless a test gives another). */
export type VectorExtensionLoader = (db: Database) => void;

const loadSqliteVec: VectorExtensionLoader = (db) => sqliteVec.load(db);

/** A chunk near the query: its id and cosine distance (0: same direction, 2: opposite). */
interface NearChunk {
  id: number;
  distance: number;
}

export interface VectorSearch {
  /** sqlite-vec's version, as it reports it. */
  version: string;
  /** The `limit` chunks the place sees whose vectors, made by `model`, are nearest the query's. */
  nearest(place: KnowledgePlace, model: string, query: Float32Array, limit: number): NearChunk[];
}

/** Loads sqlite-vec and prepares the nearest-chunks query; the error when the extension will not load. */
export function openVectorSearch(
  db: Database,
  load: VectorExtensionLoader = loadSqliteVec,
): { ok: true; search: VectorSearch } | { ok: false; error: unknown } {
  try {
    load(db);
    const version = db.prepare<[], string>('SELECT vec_version()').pluck().get()!;
    const nearest = db.prepare<
      { guild: string; channels: string; model: string; query: Buffer; limit: number },
      NearChunk
    >(
      `SELECT e.chunk_id AS id, vec_distance_cosine(e.vector, :query) AS distance FROM knowledge_embeddings e
       WHERE e.guild_id = :guild AND e.model = :model
         AND (e.channel_id IS NULL OR e.channel_id IN (SELECT value FROM json_each(:channels)))
       ORDER BY distance LIMIT :limit`,
    );
    return {
      ok: true,
      search: {
        version,
        nearest: (place, model, query, limit) =>
          nearest.all({
            guild: place.guildId,
            channels: JSON.stringify(place.channelIds),
            model,
            query: Buffer.from(query.buffer, query.byteOffset, query.byteLength),
            limit,
          }),
      },
    };
  } catch (error) {
    return { ok: false, error };
  }
}
