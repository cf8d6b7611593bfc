import { z } from 'zod';
import type { SearchHit, SearchQueries } from '../db/search.ts';
import { defineTool } from './define-tool.ts';

/** How a hit reads for the model: who said it, and the matching lines. */
export function formatHits(hits: readonly SearchHit[], withConversation: boolean): string {
  if (hits.length === 0) return 'No message matches.';
  return hits
    .map((hit) => {
      const who = hit.role === 'assistant' ? 'the assistant' : (hit.author_name ?? 'someone');
      const where = withConversation ? ` in "${hit.conversation_title}"` : '';
      return `- ${who}${where}, ${new Date(hit.created_at).toISOString().slice(0, 16).replace('T', ' ')} UTC: ${hit.snippet.replace(/\s+/g, ' ')}`;
    })
    .join('\n');
}

/** Full-text search over this conversation's messages (since its last reset). */
export function searchConversation(search: SearchQueries) {
  return defineTool({
    name: 'search_conversation',
    description:
      'Search this conversation for messages containing all the given words; returns the matching lines and who said them.',
    parameters: z.object({
      query: z.string().min(1).max(200).describe('The words to look for.'),
      limit: z.number().int().min(1).max(20).nullable().describe('How many matches at most (default 5).'),
    }),
    execute({ query, limit }, context) {
      return formatHits(search.inConversation(context.conversationId, query, limit ?? 5), false);
    },
  });
}
