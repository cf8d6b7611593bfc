/**
 * A document added to a server's knowledge from Discord, its embedding's progress shown in the
 * command's reply, and the outcome said in one sentence (a refusal plainly: empty, too large, the
 * server's knowledge full). Comes from: commands/knowledge-add.ts, commands/add-to-knowledge.ts.
 * Goes to: KnowledgeBase.add (src/knowledge/knowledge-base.ts).
 */
import type { Message } from 'discord.js';
import type { AddKnowledge, KnowledgeBase } from '../../knowledge/knowledge-base.ts';
import { escapeMarkdown } from '../../text/markdown.ts';
import { truncateLine } from '../../text/truncate.ts';
import { scopeWords } from '../interactions/knowledge-scope.ts';
import type { KnowledgeIntake } from './knowledge-intake.ts';
import { messageDocument, messageSource } from './message-documents.ts';

/** The server's knowledge, and how documents are taken into it. */
export interface KnowledgeParts {
  base: KnowledgeBase;
  intake: KnowledgeIntake;
}

/** Adds the document; `show` edits the reply with the embedding's progress. Resolves with the sentence that says what came of it. */
export async function addDocument(
  base: KnowledgeBase,
  request: Omit<AddKnowledge, 'onProgress'>,
  show: (line: string) => Promise<unknown>,
): Promise<{ added: boolean; sentence: string }> {
  // A title is a file's, a page's or a member's name: escaped, so that it cannot restyle the reply.
  const title = escapeMarkdown(truncateLine(request.source.title, 100));
  const progress = embeddingProgress(`**${title}**`, show);
  const outcome = await base.add({ ...request, onProgress: progress.report });
  await progress.settled();
  // The knowledge's sentence ("It holds…", "The server's knowledge…") goes on after a colon.
  if (!outcome.ok) return { added: false, sentence: `I did not add **${title}**: ${lowerFirst(outcome.message)}` };
  const passages = `${outcome.chunks} passage${outcome.chunks === 1 ? '' : 's'}`;
  return {
    added: true,
    sentence:
      `${outcome.replaced ? 'Replaced' : 'Added'} **${title}** in the knowledge of ${scopeWords(request.channelId)}: ` +
      `${passages}${outcome.embedded ? ', searched by meaning and by words' : ', searched by words'}.`,
  };
}

/** A message (its text and attachments) added under its own source; what its attachments could not give is said with the outcome. */
export async function addMessage(
  message: Message<true>,
  channelId: string | null,
  addedBy: string,
  { base, intake }: KnowledgeParts,
  show: (line: string) => Promise<unknown>,
): Promise<{ added: boolean; sentence: string }> {
  const { document, refusals } = await messageDocument(message, intake);
  const source = messageSource(message);
  if (document.sections.length === 0)
    return {
      added: false,
      sentence: `I did not add **${escapeMarkdown(truncateLine(source.title, 100))}**: ${refusals.join(' ') || 'it holds no text.'}`,
    };
  const outcome = await addDocument(
    base,
    { guildId: message.guildId, channelId, source, addedBy, authorId: message.author.id, document },
    show,
  );
  return refusals.length > 0
    ? { ...outcome, sentence: `${outcome.sentence} Left out: ${refusals.join(' ')}` }
    : outcome;
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * The progress of a document's embedding, shown in the deferred reply of the command that added it
 * ("Embedding guide.md: 32 of 120 passages…"): the first count at once, then at most one edit a
 * second (Discord's pace for editing one message), the last count always. Edits go one after
 * another; a failed edit is skipped, never the adding.
 */
const minimumGapMs = 1000;

interface EmbeddingProgress {
  /** KnowledgeBase.add's `onProgress`. */
  report: (embedded: number, total: number) => void;
  /** Resolves once the edits asked for so far are done (before the reply is edited for the last time). */
  settled(): Promise<void>;
}

function embeddingProgress(what: string, show: (line: string) => Promise<unknown>): EmbeddingProgress {
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
