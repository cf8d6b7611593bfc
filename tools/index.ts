import type { ToolDefinition } from './define-tool.ts';
import { calculator } from './calculator.ts';
import { currentTime } from './current-time.ts';
import { fetchUrl } from './fetch-url.ts';
import type { ScheduleQueries } from '../db/schedules.ts';
import type { SearchQueries } from '../db/search.ts';
import type { ConversationRow } from '../db/conversations.ts';
import type { KnowledgeBase } from '../src/knowledge/knowledge-base.ts';
import { remindMe } from './remind-me.ts';
import { searchConversation } from './search-conversation.ts';
import { searchKnowledge } from './search-knowledge.ts';
import { searchServer } from './search-server.ts';
import type { WebSearchConfig } from '../src/web/search/providers/index.ts';
import { webSearch } from './web-search.ts';

/** The built-in tools that need nothing but their arguments, in the order the model and `/help` list them. */
export const builtInTools: readonly ToolDefinition[] = [calculator, currentTime, fetchUrl];

/** The built-in tools that use the bot's own database. */
export function databaseTools(store: { search: SearchQueries; schedules: ScheduleQueries }): ToolDefinition[] {
  return [searchConversation(store.search), searchServer(store.search), remindMe(store.schedules)];
}

/** The tools that reach a service on the web the operator configured: web_search, when WEB_SEARCH found a provider. */
export function webTools(config: { webSearch: WebSearchConfig | null }): ToolDefinition[] {
  return config.webSearch ? [webSearch(config.webSearch)] : [];
}

/** search_knowledge: the servers' knowledge (`/knowledge`), offered in a run only where its place has some. */
export function knowledgeTools(
  knowledge: Pick<KnowledgeBase, 'search' | 'has'>,
  store: { conversations: { byKey(key: string): Pick<ConversationRow, 'channel_id' | 'thread_id'> | undefined } },
): ToolDefinition[] {
  return [searchKnowledge(knowledge, store.conversations)];
}
