import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backUpDatabase, checkBackup } from '../../db/backup.ts';
import { openDatabase } from '../../db/open-database.ts';
import { KnowledgeBase } from '../../src/knowledge/knowledge-base.ts';
import { inProcessEmbeddings } from '../support/fake-embeddings-server.ts';
import { documentOf, fileAdd } from '../support/knowledge-world.ts';

const inProcess = inProcessEmbeddings();
const options = { embeddings: inProcess, maxDocumentCharacters: 100_000, maxServerCharacters: 1_000_000 };

describe('backups and the knowledge', () => {
  it('carry the documents, their index and vectors; the backup is checked and read without sqlite-vec loaded', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'knowledge-backup-'));
    const db = openDatabase(join(folder, 'bot.sqlite'));
    await new KnowledgeBase(db, options).add(
      fileAdd('g1', 'faq.md', documentOf('FAQ', ['Refunds', 'Paid within 30 days.'])),
    );
    db.close();

    const backup = join(folder, 'backup.sqlite');
    await backUpDatabase(join(folder, 'bot.sqlite'), backup);
    // A connection without the extension: the integrity check reads every table, the index included.
    expect(checkBackup(backup).version).toBeGreaterThan(0);

    const restored = new KnowledgeBase(openDatabase(backup), options);
    expect(restored.list('g1')).toMatchObject([{ source: { key: 'file:faq.md' }, embeddingStale: false }]);
    const passages = await restored.search({ guildId: 'g1', channelIds: [], query: 'refunds paid', limit: 5 });
    expect(passages.map((passage) => passage.text)).toEqual(['Paid within 30 days.']);
  });
});
