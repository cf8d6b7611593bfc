import { z } from 'zod';
import type { SearchQueries } from '../db/search.ts';
import { defineTool } from './define-tool.ts';
import { formatHits } from './search-conversation.ts';

/** Full-text search across every conversation of this server: for moderators only. */
export function searchServer(search: SearchQueries) {
  return defineTool({
    name: 'search_server',
    description:
      "Search all of this server's conversations for messages containing all the given words (moderators only).",
    moderatorOnly: true,
    parameters: z.object({
      query: z.string().min(1).max(200).describe('The words to look for.'),
      limit: z.number().int().min(1).max(20).nullable().describe('How many matches at most (default 5).'),
    }),
    execute({ query, limit }, context) {
      if (!context.guildId) return 'There is no server here to search: use search_conversation.';
      return formatHits(search.inServer(context.guildId, query, limit ?? 5), true);
    },
  });
}
