/**
 * The progress of a document's embedding, shown in the deferred reply of the command that added it
 * ("Embedding guide.md: 32 of 120 passages…"): the first count at once, then at most one edit a
 * second (Discord's pace for editing one message), the last count always. Edits go one after
 * another; a failed edit is skipped, never the adding.
 */
const minimumGapMs = 1000;

export interface EmbeddingProgress {
  /** KnowledgeBase.add's `onProgress`. */
  report: (embedded: number, total: number) => void;
  /** Resolves once the edits asked for so far are done (before the reply is edited for the last time). */
  settled(): Promise<void>;
}

export function embeddingProgress(what: string, show: (line: string) => Promise<unknown>): EmbeddingProgress {
  let shownAt = -Infinity;
  let edits: Promise<unknown> = Promise.resolve();
  return {
    report: (embedded, total) => {
      const now = performance.now();
      if (embedded < total && now - shownAt < minimumGapMs) return;
      shownAt = now;
      edits = edits.then(() => show(`Embedding ${what}: ${embedded} of ${total} passages…`)).catch(() => undefined);
    },
    settled: () => edits.then(() => undefined),
  };
}
