/**
 * A server's knowledge moves with it (`npm run move-server`): its documents, their chunks and the
 * chunks' vectors, every integer id given anew in the target (where the same ids are taken), the
 * full-text index filled there; other servers' knowledge stays where it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { copyServer, deleteServer, planMove } from '../../db/move-server.ts';
import type { Store } from '../../db/store.ts';
import type { EmbeddingsClient } from '../../src/knowledge/embeddings-client.ts';
import { KnowledgeBase } from '../../src/knowledge/knowledge-base.ts';
import { tempStore } from '../support/temp-store.ts';

const moved = '100000000000000001';
const other = '100000000000000002';
const targets = '100000000000000003';

let stores: Store[] = [];
afterEach(() => {
  for (const store of stores) store.close();
  stores = [];
});

/** Vectors in-process: a coordinate per letter, so texts sharing words point the same way. */
const embeddings: EmbeddingsClient = {
  model: 'letters-1',
  batchSize: 8,
  embed: async (texts) =>
    texts.map((text) => {
      const vector = new Float32Array(26);
      for (const letter of text.toLowerCase().replace(/[^a-z]/g, '')) vector[letter.charCodeAt(0) - 97]! += 1;
      return vector;
    }),
};

function knowledgeOf(store: Store) {
  return new KnowledgeBase(store.db, { embeddings, maxDocumentCharacters: 100_000, maxServerCharacters: 1_000_000 });
}

async function database(...servers: [guild: string, text: string][]): Promise<Store> {
  const { store } = tempStore();
  stores.push(store);
  const knowledge = knowledgeOf(store);
  for (const [index, [guild, text]] of servers.entries())
    await knowledge.add({
      guildId: guild,
      channelId: null,
      source: {
        kind: 'file',
        key: `file:guide-${index}.md`,
        title: `Guide of ${guild}`,
        link: `https://example.org/${guild}`,
      },
      addedBy: 'moderator',
      authorId: null,
      document: { title: 'Guide', sections: [{ heading: 'Hours', text }] },
    });
  return store;
}

const rows = (store: Store, table: string, guild: string) =>
  store.db.prepare(`SELECT count(*) FROM ${table} WHERE guild_id = ?`).pluck().get(guild);

describe("a server's knowledge on the move", () => {
  it('goes with its documents, chunks and vectors, ids remapped; the target searches it by words and by meaning', async () => {
    const a = await database([other, 'The pool opens at noon.'], [moved, 'The library opens at nine.']);
    // The target's ids run ahead of the source's: a reference copied as it was would name the target's own rows.
    const b = await database(
      [targets, 'The garden opens at dawn.'],
      [targets, 'The gate opens at six.'],
      [targets, 'The hall opens late.'],
    );
    const { state } = planMove(a.db, b.db, moved);
    expect(state).toBe('to-copy');
    copyServer(a.db, b.db, moved);
    deleteServer(a.db, moved);

    const found = await knowledgeOf(b).search({ guildId: moved, channelIds: [], query: 'library', limit: 5 });
    expect(found.map((passage) => [passage.title, passage.heading, passage.text, passage.link])).toEqual([
      [`Guide of ${moved}`, 'Hours', 'The library opens at nine.', `https://example.org/${moved}`],
    ]);
    for (const table of ['knowledge_documents', 'knowledge_chunks', 'knowledge_embeddings']) {
      expect(rows(b, table, moved)).toBe(1);
      expect(rows(a, table, moved)).toBe(0);
      expect(rows(a, table, other)).toBe(1);
    }
    // Each vector stands beside its own chunk in the target, and the index is sound.
    expect(
      b.db
        .prepare(
          'SELECT count(*) FROM knowledge_embeddings e JOIN knowledge_chunks c ON c.id = e.chunk_id WHERE c.guild_id = e.guild_id',
        )
        .pluck()
        .get(),
    ).toBe(4);
    b.db.prepare(`INSERT INTO knowledge_fts (knowledge_fts) VALUES ('integrity-check')`).run();
    expect(knowledgeOf(b).list(moved)[0]?.embeddingStale).toBe(false);
    expect(await knowledgeOf(a).search({ guildId: moved, channelIds: [], query: 'library', limit: 5 })).toEqual([]);
    expect(
      (await knowledgeOf(a).search({ guildId: other, channelIds: [], query: 'pool', limit: 5 })).map((p) => p.text),
    ).toEqual(['The pool opens at noon.']);
  });
});
