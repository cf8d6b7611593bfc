/** A knowledge base on a real, migrated database, and helpers to add documents to it. */
import { openDatabase } from '../../db/open-database.ts';
import type { EmbeddingsClient } from '../../src/knowledge/embeddings-client.ts';
import type { ExtractedDocument } from '../../src/knowledge/extract-text.ts';
import {
  type AddKnowledge,
  KnowledgeBase,
  type KnowledgeOptions,
  type KnowledgeScope,
  type KnowledgeSource,
  type KnowledgeSourceKind,
} from '../../src/knowledge/knowledge-base.ts';

export function knowledgeWorld(options: Partial<KnowledgeOptions> & { embeddings?: EmbeddingsClient | null } = {}) {
  const db = openDatabase(':memory:');
  const knowledge = new KnowledgeBase(db, {
    embeddings: null,
    maxDocumentCharacters: 100_000,
    maxServerCharacters: 1_000_000,
    ...options,
  });
  return { db, knowledge };
}

/** A document of one section per [heading, text]. */
export function documentOf(title: string, ...sections: [string | null, string][]): ExtractedDocument {
  return { title, sections: sections.map(([heading, text]) => ({ heading, text })) };
}

/** An add request for a file in a server (or one of its channels), added by a moderator. */
export function fileAdd(
  guildId: string,
  name: string,
  document: ExtractedDocument,
  extra: Partial<AddKnowledge> = {},
): AddKnowledge {
  const scope: KnowledgeScope = { guildId, channelId: null };
  const kind: KnowledgeSourceKind = 'file';
  const source: KnowledgeSource = {
    kind,
    key: `file:${name}`,
    title: document.title,
    link: `https://cdn.test/${name}`,
  };
  return {
    ...scope,
    source,
    addedBy: 'moderator-1',
    authorId: null,
    document,
    ...extra,
  };
}
