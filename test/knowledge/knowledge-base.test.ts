import { describe, expect, it } from 'vitest';
import { documentOf, fileAdd, knowledgeWorld } from '../support/knowledge-world.ts';

const refunds = documentOf('Refund policy', ['Refunds', 'Refunds are paid within 30 days of a return.']);
const shipping = documentOf('Shipping', ['Shipping', 'Parcels ship from Lyon on weekdays.']);

describe('KnowledgeBase (BM25 alone)', () => {
  it('finds a document’s passage by its words, numbered, with its title, heading and link', async () => {
    const { knowledge } = knowledgeWorld();
    const added = await knowledge.add(fileAdd('g1', 'refunds.md', refunds));
    expect(added).toEqual({ ok: true, documentId: expect.any(Number), chunks: 1, replaced: false, embedded: false });
    await knowledge.add(fileAdd('g1', 'shipping.md', shipping));
    const passages = await knowledge.search({
      guildId: 'g1',
      channelIds: [],
      query: 'when are refunds paid?',
      limit: 5,
    });
    expect(passages).toEqual([
      {
        number: 1,
        documentId: (added as { documentId: number }).documentId,
        chunkId: expect.any(Number),
        title: 'Refund policy',
        heading: 'Refunds',
        text: 'Refunds are paid within 30 days of a return.',
        link: 'https://cdn.test/refunds.md',
        sourceKind: 'file',
      },
    ]);
  });

  it('matches stemmed words: "shipped" finds "ship"', async () => {
    const { knowledge } = knowledgeWorld();
    await knowledge.add(fileAdd('g1', 'shipping.md', shipping));
    const passages = await knowledge.search({ guildId: 'g1', channelIds: [], query: 'shipped parcel', limit: 5 });
    expect(passages.map((passage) => passage.title)).toEqual(['Shipping']);
  });

  it('never returns, lists, counts or removes another server’s documents', async () => {
    const { knowledge } = knowledgeWorld();
    const first = await knowledge.add(fileAdd('guild-a', 'refunds.md', refunds));
    await knowledge.add(fileAdd('guild-b', 'shipping.md', shipping));
    const fromB = await knowledge.search({
      guildId: 'guild-b',
      channelIds: [],
      query: 'refunds paid days return',
      limit: 5,
    });
    expect(fromB).toEqual([]);
    expect(knowledge.list('guild-b').map((document) => document.source.title)).toEqual(['Shipping']);
    expect(knowledge.has({ guildId: 'guild-c', channelIds: [] })).toBe(false);
    expect(knowledge.remove('guild-b', (first as { documentId: number }).documentId)).toBe(false);
    expect(knowledge.removeSource('guild-b', 'file:refunds.md')).toBe(false);
    expect(knowledge.documentOfSource('guild-b', 'file:refunds.md')).toBeUndefined();
    expect(knowledge.documentOfSource('guild-a', 'file:refunds.md')?.source.title).toBe('Refund policy');
    expect(knowledge.list('guild-a')).toHaveLength(1);
  });

  it('lets a channel’s documents be seen in that channel (and its threads, by the parent’s id) only', async () => {
    const { knowledge } = knowledgeWorld();
    await knowledge.add(fileAdd('g1', 'refunds.md', refunds, { channelId: 'support' }));
    await knowledge.add(fileAdd('g1', 'shipping.md', shipping));
    const search = (channelIds: string[]) =>
      knowledge.search({ guildId: 'g1', channelIds, query: 'refunds shipping', limit: 5 });
    expect((await search(['general'])).map((passage) => passage.title)).toEqual(['Shipping']);
    expect((await search(['thread-9', 'support'])).map((passage) => passage.title).sort()).toEqual([
      'Refund policy',
      'Shipping',
    ]);
    expect(knowledge.has({ guildId: 'g1', channelIds: ['general'] })).toBe(true);
    expect(knowledge.list('g1', 'support').map((document) => document.source.title)).toEqual(['Refund policy']);
    expect(knowledge.list('g1', null).map((document) => document.source.title)).toEqual(['Shipping']);
  });

  it('has knowledge in a channel only where a document is scoped to it or the server', async () => {
    const { knowledge } = knowledgeWorld();
    await knowledge.add(fileAdd('g1', 'refunds.md', refunds, { channelId: 'support' }));
    expect(knowledge.has({ guildId: 'g1', channelIds: ['general'] })).toBe(false);
    expect(knowledge.has({ guildId: 'g1', channelIds: ['support'] })).toBe(true);
  });

  it('replaces a source added again: the old chunks are no longer found', async () => {
    const { knowledge } = knowledgeWorld();
    await knowledge.add(fileAdd('g1', 'refunds.md', refunds));
    const again = await knowledge.add(
      fileAdd('g1', 'refunds.md', documentOf('Refund policy', ['Refunds', 'Refunds are paid within 14 days.'])),
    );
    expect(again).toMatchObject({ ok: true, replaced: true });
    expect(knowledge.list('g1')).toHaveLength(1);
    const passages = await knowledge.search({ guildId: 'g1', channelIds: [], query: 'refunds days', limit: 5 });
    expect(passages.map((passage) => passage.text)).toEqual(['Refunds are paid within 14 days.']);
  });

  it('removes a document with its chunks and its index rows', async () => {
    const { knowledge, db } = knowledgeWorld();
    const added = await knowledge.add(fileAdd('g1', 'refunds.md', refunds));
    expect(knowledge.remove('g1', (added as { documentId: number }).documentId)).toBe(true);
    expect(await knowledge.search({ guildId: 'g1', channelIds: [], query: 'refunds', limit: 5 })).toEqual([]);
    expect(db.prepare("SELECT count(*) FROM knowledge_fts WHERE knowledge_fts MATCH 'refunds'").pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM knowledge_chunks').pluck().get()).toBe(0);
    expect(knowledge.has({ guildId: 'g1', channelIds: [] })).toBe(false);
  });

  it('takes any text as a query without an FTS5 syntax error', async () => {
    const { knowledge } = knowledgeWorld();
    await knowledge.add(fileAdd('g1', 'refunds.md', refunds));
    for (const query of [
      '"unclosed',
      'refunds AND OR NOT',
      'NEAR(refunds',
      '*',
      'col:refunds',
      '-refunds ^days',
      '()',
      '',
    ]) {
      await expect(knowledge.search({ guildId: 'g1', channelIds: [], query, limit: 5 })).resolves.toBeInstanceOf(Array);
    }
    const hits = await knowledge.search({
      guildId: 'g1',
      channelIds: [],
      query: 'heading:refunds "AND" (days)',
      limit: 5,
    });
    expect(hits).toHaveLength(1);
  });

  it('refuses an empty document, one over the per-document cap, and one that would pass the server’s cap', async () => {
    const { knowledge } = knowledgeWorld({ maxDocumentCharacters: 100, maxServerCharacters: 150 });
    expect(await knowledge.add(fileAdd('g1', 'empty.md', documentOf('Empty', [null, '   '])))).toMatchObject({
      ok: false,
      refused: 'empty',
    });
    const large = await knowledge.add(fileAdd('g1', 'large.md', documentOf('Large', [null, 'x'.repeat(101)])));
    expect(large).toMatchObject({ ok: false, refused: 'document-too-large', message: expect.stringContaining('100') });
    expect(await knowledge.add(fileAdd('g1', 'a.md', documentOf('A', [null, 'a'.repeat(100)])))).toMatchObject({
      ok: true,
    });
    const full = await knowledge.add(fileAdd('g1', 'b.md', documentOf('B', [null, 'b'.repeat(60)])));
    expect(full).toMatchObject({ ok: false, refused: 'server-full', message: expect.stringContaining('150') });
    // Another server has its own cap; and the same source again is measured without its old self.
    expect(await knowledge.add(fileAdd('g2', 'b.md', documentOf('B', [null, 'b'.repeat(60)])))).toMatchObject({
      ok: true,
    });
    expect(await knowledge.add(fileAdd('g1', 'a.md', documentOf('A', [null, 'c'.repeat(100)])))).toMatchObject({
      ok: true,
      replaced: true,
    });
  });

  it('forgets a member’s own words (messages they wrote) but keeps what they added as files', async () => {
    const { knowledge } = knowledgeWorld();
    await knowledge.add(
      fileAdd('g1', 'm', documentOf('Message', [null, 'my words']), {
        source: {
          kind: 'message',
          key: 'message:c1/m1',
          title: 'Message',
          link: 'https://discord.com/channels/g1/c1/m1',
        },
        authorId: 'member-7',
      }),
    );
    await knowledge.add(fileAdd('g1', 'refunds.md', refunds, { addedBy: 'member-7' }));
    await knowledge.add(
      fileAdd('g2', 'm', documentOf('Message', [null, 'words elsewhere']), {
        source: { kind: 'message', key: 'message:c2/m2', title: 'Message', link: null },
        authorId: 'member-7',
      }),
    );
    expect(knowledge.forgetAuthor('member-7', 'g1')).toBe(1);
    expect(knowledge.list('g1').map((document) => document.source.kind)).toEqual(['file']);
    expect(knowledge.forgetAuthor('member-7')).toBe(1);
    expect(knowledge.list('g2')).toEqual([]);
  });
});
