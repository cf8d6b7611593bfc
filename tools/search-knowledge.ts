import { z } from 'zod';
import type { ConversationRow } from '../db/conversations.ts';
import { knowledgeSource } from '../src/agent/checked-sources.ts';
import type { KnowledgeBase, Passage } from '../src/knowledge/knowledge-base.ts';
import { knowledgeToolName } from '../src/place-settings/place-choice.ts';
import { truncate } from '../src/text/truncate.ts';
import { defineTool } from './define-tool.ts';

/** A passage as the model (and `/knowledge search`) reads it: its number, where it comes from, its link, its text. */
export function passageLines(passage: Passage, maxChars = 2000): string[] {
  // A heading path often begins with the document's own title (its first heading): said once.
  const where =
    passage.heading === null
      ? passage.title
      : passage.heading.startsWith(passage.title)
        ? passage.heading
        : `${passage.title} › ${passage.heading}`;
  return [
    `[${passage.number}] ${where}`,
    `Source: ${passage.link ?? `knowledge:${passage.documentId}`}`,
    truncate(passage.text.trim(), maxChars),
    '',
  ];
}

/**
 * search_knowledge: the passages of the server's knowledge (documents, pins, FAQs its moderators
 * added with `/knowledge`) that match a question, numbered, each with its source and link. Only
 * the server's own documents, those of the whole server and of the conversation's channel; offered
 * only where there are some (src/place-settings/place-choice.ts). Each source is noted as checked,
 * so that the answer may cite it (src/agent/checked-sources.ts): its link, or for a document
 * without one (a file a moderator added) `knowledge:<id>`, shown under the answer by its title.
 */
export function searchKnowledge(
  knowledge: Pick<KnowledgeBase, 'search' | 'has'>,
  conversations: { byKey(key: string): Pick<ConversationRow, 'channel_id' | 'thread_id'> | undefined },
) {
  return defineTool({
    name: knowledgeToolName,
    description:
      "Search this server's own knowledge (documents, pinned messages and FAQs its moderators added) for passages " +
      'that answer a question. Prefer it to the web for questions about this server or community. ' +
      'Cite the passages you use: put their Source (a link, or knowledge:<id>) in final_answer.sources.',
    parameters: z.object({
      query: z.string().min(1).max(300).describe('The question, or the words to look for.'),
      limit: z.number().int().min(1).max(10).nullable().describe('How many passages at most (default 5).'),
    }),
    async execute({ query, limit }, context) {
      if (!context.guildId) return 'There is no server here, so no knowledge to search.';
      const conversation = conversations.byKey(context.conversationId);
      const channelIds = [conversation?.channel_id, conversation?.thread_id, context.channelId].filter(
        (id): id is string => typeof id === 'string',
      );
      // The agent is offered it only where there is knowledge; `/tool search_knowledge` runs it anywhere.
      if (!knowledge.has({ guildId: context.guildId, channelIds }))
        return 'There is no knowledge here: no document of this server or channel. Moderators add them with /knowledge add.';
      const passages = await knowledge.search({ guildId: context.guildId, channelIds, query, limit: limit ?? 5 });
      if (passages.length === 0) return "Nothing in this server's knowledge matches. Say so rather than guess.";
      for (const passage of passages)
        context.noteSource?.(passage.link ?? knowledgeSource(passage.documentId, passage.title));
      return passages
        .flatMap((passage) => passageLines(passage))
        .join('\n')
        .trim();
    },
  });
}
