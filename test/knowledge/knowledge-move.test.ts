import { describe, expect, it } from 'vitest';
import { copyServer, deleteServer, planMove } from '../../db/move-server.ts';
import { inProcessEmbeddings } from '../support/fake-embeddings-server.ts';
import { documentOf, fileAdd, knowledgeWorld } from '../support/knowledge-world.ts';

const inProcess = inProcessEmbeddings();

describe("npm run move-server and the server's knowledge", () => {
  it('moves a server’s documents, chunks and vectors, with their ids given anew where the target has others', async () => {
    const source = knowledgeWorld({ embeddings: inProcess });
    const target = knowledgeWorld({ embeddings: inProcess });
    // The target's own server holds documents first: ids 1… are taken there.
    await target.knowledge.add(fileAdd('other', 'faq.md', documentOf('FAQ', ['Hours', 'Open from nine to five.'])));
    await source.knowledge.add(
      fileAdd('moving', 'faq.md', documentOf('Kettle', ['Kettle', 'Descale the kettle monthly.'])),
    );
    await source.knowledge.add(
      fileAdd('moving', 'rules.md', documentOf('Rules', ['Rules', 'Be kind in the voice channels.']), {
        channelId: 'c1',
      }),
    );

    expect(planMove(source.db, target.db, 'moving').state).toBe('to-copy');
    copyServer(source.db, target.db, 'moving');
    deleteServer(source.db, 'moving');

    const search = (query: string, channelIds: string[] = []) =>
      target.knowledge.search({ guildId: 'moving', channelIds, query, limit: 5 });
    expect((await search('descale kettle')).map((passage) => passage.title)).toEqual(['Kettle']);
    expect((await search('voice channels', ['c1']))[0]?.title).toBe('Rules');
    expect((await search('voice channels')).map((passage) => passage.title)).not.toContain('Rules');
    expect(target.knowledge.list('moving').map((document) => document.embeddingStale)).toEqual([false, false]);
    expect(
      (await target.knowledge.search({ guildId: 'other', channelIds: [], query: 'open', limit: 5 }))[0]?.title,
    ).toBe('FAQ');
    expect(source.knowledge.list('moving')).toEqual([]);
    expect(source.db.prepare('SELECT count(*) FROM knowledge_embeddings').pluck().get()).toBe(0);
  });
});
