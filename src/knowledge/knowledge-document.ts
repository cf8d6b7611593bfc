/** A document's text as the knowledge takes it, and why a file is refused (src/knowledge/extract-text.ts makes both). */
export type KnowledgeSection = { heading: string | null; text: string };
export type ExtractedDocument = { title: string; sections: KnowledgeSection[] };
export type ExtractRefusal = {
  refused: 'format' | 'size' | 'no-text' | 'password' | 'unreadable';
  /** A plain sentence for a moderator. */
  message: string;
};
