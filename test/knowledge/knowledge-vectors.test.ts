import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddingsClient, type EmbeddingsClient } from '../../src/knowledge/embeddings-client.ts';
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from '../support/fake-embeddings-server.ts';
import { documentOf, fileAdd, knowledgeWorld } from '../support/knowledge-world.ts';
import { recordingLogger } from '../support/recording-logger.ts';

let server: FakeEmbeddingsServer;
beforeEach(async () => {
  server = await startFakeEmbeddingsServer();
});
afterEach(() => server.close());

const clientFor = (model = 'fake-embed-1'): EmbeddingsClient =>
  createEmbeddingsClient({
    model,
    baseURL: server.baseURL,
    apiKey: 'sk-embed-secret-123456',
    timeoutSeconds: 5,
    maxRetries: 0,
  })!;

/** A document whose words BM25 ranks one way and the fake's vectors another. */
const manual = documentOf(
  'Manual',
  ['Kettle', 'The kettle boils water. Descale the kettle monthly.'],
  ['Toaster', 'The toaster browns bread; crumbs collect in its tray.'],
);

describe('KnowledgeBase with embeddings (the fake server, the real openai client)', () => {
  it('embeds a document’s chunks in batches as it is added, telling the progress', async () => {
    const { knowledge, db } = knowledgeWorld({
      embeddings: { model: 'fake-embed-1', batchSize: 2, embed: (texts) => clientFor().embed(texts) },
    });
    const sections = Array.from({ length: 5 }, (_, index): [string, string] => [
      `Part ${index}`,
      `Text of part ${index}.`,
    ]);
    const progress: [number, number][] = [];
    const added = await knowledge.add({
      ...fileAdd('g1', 'parts.md', documentOf('Parts', ...sections)),
      onProgress: (embedded, total) => progress.push([embedded, total]),
    });
    expect(added).toMatchObject({ ok: true, chunks: 5, embedded: true });
    expect(progress).toEqual([
      [0, 5],
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
    expect(server.requests.map((request) => request.input)).toEqual([
      ['Part 0\n\nText of part 0.', 'Part 1\n\nText of part 1.'],
      ['Part 2\n\nText of part 2.', 'Part 3\n\nText of part 3.'],
      ['Part 4\n\nText of part 4.'],
    ]);
    expect(server.requests.every((request) => request.encoding_format === 'float')).toBe(true);
    expect(db.prepare('SELECT count(*) FROM knowledge_embeddings').pluck().get()).toBe(5);
    expect(knowledge.list('g1')[0]).toMatchObject({ embeddingModel: 'fake-embed-1', embeddingStale: false });
  });

  it('adds the vector ranking to the keyword one: a passage no query word matches still comes, after', async () => {
    const keywordsOnly = knowledgeWorld();
    await keywordsOnly.knowledge.add(fileAdd('g1', 'manual.md', manual));
    const { knowledge } = knowledgeWorld({ embeddings: clientFor() });
    await knowledge.add(fileAdd('g1', 'manual.md', manual));
    const search = { guildId: 'g1', channelIds: [], query: 'Toaster tray crumbs?', limit: 2 };
    // BM25 finds the toaster's chunk alone; the vector ranking holds every chunk of the place.
    expect((await keywordsOnly.knowledge.search(search)).map((passage) => passage.heading)).toEqual(['Toaster']);
    expect((await knowledge.search(search)).map((passage) => passage.heading)).toEqual(['Toaster', 'Kettle']);
    expect(server.requests.at(-1)!.input).toEqual(['Toaster tray crumbs?']);
  });

  it('still keeps each server’s vectors to itself', async () => {
    const { knowledge } = knowledgeWorld({ embeddings: clientFor() });
    await knowledge.add(fileAdd('guild-a', 'manual.md', manual));
    await knowledge.add(fileAdd('guild-b', 'other.md', documentOf('Other', [null, 'Nothing alike here.'])));
    const fromB = await knowledge.search({ guildId: 'guild-b', channelIds: [], query: 'kettle toaster', limit: 5 });
    expect(fromB.map((passage) => passage.title)).toEqual(['Other']);
  });

  it('keeps a document it could not embed, searched by BM25, said stale, and embeds it on the next pass', async () => {
    const { logger, lines } = recordingLogger();
    const { knowledge } = knowledgeWorld({ embeddings: clientFor(), logger });
    server.down = true;
    const added = await knowledge.add(fileAdd('g1', 'manual.md', manual));
    expect(added).toMatchObject({ ok: true, embedded: false });
    expect(knowledge.list('g1')[0]).toMatchObject({ embeddingModel: null, embeddingStale: true });
    expect((await knowledge.search({ guildId: 'g1', channelIds: [], query: 'kettle', limit: 5 }))[0]?.heading).toBe(
      'Kettle',
    );
    expect(lines.map((line) => line.msg)).toContain('a knowledge document could not be embedded');
    expect(JSON.stringify(lines.map((line) => String(line.fields.err)))).not.toContain('sk-embed-secret-123456');
    server.down = false;
    expect(await knowledge.reembedStale()).toBe(1);
    expect(knowledge.list('g1')[0]).toMatchObject({ embeddingModel: 'fake-embed-1', embeddingStale: false });
  });

  it('re-embeds with a changed model the documents the old one embedded, and says they are stale until then', async () => {
    const first = knowledgeWorld({ embeddings: clientFor('fake-embed-1') });
    await first.knowledge.add(fileAdd('g1', 'manual.md', manual));
    const { KnowledgeBase } = await import('../../src/knowledge/knowledge-base.ts');
    const second = new KnowledgeBase(first.db, {
      embeddings: clientFor('fake-embed-2'),
      maxDocumentCharacters: 100_000,
      maxServerCharacters: 1_000_000,
    });
    expect(second.list('g1')[0]).toMatchObject({ embeddingModel: 'fake-embed-1', embeddingStale: true });
    const progress: [number, number][] = [];
    expect(await second.reembedStale((done, total) => progress.push([done, total]))).toBe(1);
    expect(progress).toEqual([[1, 1]]);
    expect(second.list('g1')[0]).toMatchObject({ embeddingModel: 'fake-embed-2', embeddingStale: false });
    const models = first.db.prepare('SELECT DISTINCT model FROM knowledge_embeddings').pluck().all();
    expect(models).toEqual(['fake-embed-2']);
  });

  it('searches by BM25 alone, logging it once, when sqlite-vec will not load', async () => {
    const { logger, lines } = recordingLogger();
    const { knowledge } = knowledgeWorld({
      embeddings: clientFor(),
      logger,
      loadVectorExtension: () => {
        throw new Error('not authorized to load extensions');
      },
    });
    expect(knowledge.vectorSearch).toBe(false);
    expect(await knowledge.add(fileAdd('g1', 'manual.md', manual))).toMatchObject({ ok: true, embedded: false });
    const passages = await knowledge.search({ guildId: 'g1', channelIds: [], query: 'kettle', limit: 5 });
    expect(passages.map((passage) => passage.heading)).toEqual(['Kettle']);
    expect(server.requests).toEqual([]);
    expect(lines.filter((line) => line.msg?.startsWith('sqlite-vec could not be loaded'))).toHaveLength(1);
    expect(knowledge.list('g1')[0]).toMatchObject({ embeddingStale: false });
  });
});

describe('createEmbeddingsClient', () => {
  it('is null without a model', () => {
    expect(createEmbeddingsClient(null)).toBeNull();
  });

  it('says plainly when the server does not know the model, without the key', async () => {
    await expect(clientFor('no-such-model').embed(['x'])).rejects.toThrow(/does not know EMBEDDING_MODEL/);
    const error: unknown = await clientFor('no-such-model')
      .embed(['x'])
      .catch((caught: unknown) => caught);
    expect(String((error as Error).message)).not.toContain('sk-embed-secret-123456');
  });
});
