import type { ToolDefinition } from './define-tool.ts';
import { calculator } from './calculator.ts';
import { currentTime } from './current-time.ts';
import { fetchUrl } from './fetch-url.ts';
import type { ReminderQueries } from '../db/reminders.ts';
import type { SearchQueries } from '../db/search.ts';
import { remindMe } from './remind-me.ts';
import { searchConversation } from './search-conversation.ts';
import { searchServer } from './search-server.ts';

/** The built-in tools that need nothing but their arguments, in the order the model and `/help` list them. */
export const builtInTools: readonly ToolDefinition[] = [calculator, currentTime, fetchUrl];

/** The built-in tools that use the bot's own database. */
export function databaseTools(store: { search: SearchQueries; reminders: ReminderQueries }): ToolDefinition[] {
  return [searchConversation(store.search), searchServer(store.search), remindMe(store.reminders)];
}
