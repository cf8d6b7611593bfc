import { describe, expect, it } from 'vitest';
import { sweepExpired } from '../../db/retention.ts';
import { documentOf, fileAdd, knowledgeWorld } from '../support/knowledge-world.ts';

const day = 86_400_000;

describe('retention and the knowledge', () => {
  it('sweeps Discord messages added longer ago than MESSAGE_RETENTION_DAYS, with their index, and keeps files', async () => {
    const now = Date.UTC(2026, 10, 29);
    let clock = now - 40 * day;
    const { knowledge, db } = knowledgeWorld({ now: () => clock });
    const message = (id: string) =>
      fileAdd('g1', id, documentOf('Message', [null, `pinned words ${id}`]), {
        source: { kind: 'message', key: `message:c1/${id}`, title: 'Message', link: null },
        authorId: 'member-1',
      });
    await knowledge.add(message('old'));
    await knowledge.add(fileAdd('g1', 'old-file.md', documentOf('Old file', [null, 'pinned words of a file'])));
    clock = now - 5 * day;
    await knowledge.add(message('recent'));

    const { counts } = await sweepExpired(db, { messageDays: 30, stepLogDays: null, imageDays: null }, { now });
    expect(counts.knowledge).toBe(1);
    expect(knowledge.list('g1').map((document) => document.source.key)).toEqual([
      'file:old-file.md',
      'message:c1/recent',
    ]);
    const found = await knowledge.search({ guildId: 'g1', channelIds: [], query: 'pinned old', limit: 5 });
    expect(found.map((passage) => passage.text)).not.toContain('pinned words old');
  });

  it('counts a message’s retention from when it was first added, not from its last edit (a replace)', async () => {
    const now = Date.UTC(2026, 10, 29);
    let clock = now - 40 * day;
    const { knowledge, db } = knowledgeWorld({ now: () => clock });
    const message = (text: string) =>
      fileAdd('g1', 'm1', documentOf('Message', [null, text]), {
        source: { kind: 'message', key: 'message:c1/m1', title: 'Message', link: null },
        authorId: 'member-1',
      });
    await knowledge.add(message('first words'));
    clock = now - 5 * day;
    expect(await knowledge.add(message('edited words'))).toMatchObject({ ok: true, replaced: true });
    expect(knowledge.list('g1')[0]).toMatchObject({ createdAt: now - 40 * day, updatedAt: now - 5 * day });

    const { counts } = await sweepExpired(db, { messageDays: 30, stepLogDays: null, imageDays: null }, { now });
    expect(counts.knowledge).toBe(1);
    expect(knowledge.list('g1')).toEqual([]);
  });
});
