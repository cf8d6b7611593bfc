/**
 * A conversation's running summary, brought up to date once its queue has nothing left to answer.
 * Comes from: the conversation queues' `afterDrain` (built in src/discord/bot.ts). Does: look up
 * what applies in the conversation's place now (its model, its window) and hand the go to the
 * memory (src/memory/memory-summary.ts). Goes to: the database, through the memory.
 */
import type { Logger } from '../agent/logger.ts';
import type { ConversationMemory } from '../memory/conversation-memory.ts';
import { placeChoice, type PlaceChoiceSources } from '../place-settings/place-choice.ts';
import type { UsageLimits } from './usage-limits.ts';

/** What bringing a summary up to date uses of the bot's services. */
export interface SummaryServices extends PlaceChoiceSources {
  memory: ConversationMemory;
  limits: Pick<UsageLimits, 'budgetLeft'>;
  instanceId: string;
  logger: Logger;
  shutdown: AbortSignal;
}

/** Sums up what fell out of the window of the conversation `conversationKey`; `newWork` stops it between calls. */
export async function summariseConversation(
  services: SummaryServices,
  conversationKey: string,
  newWork: AbortSignal,
): Promise<void> {
  if (services.shutdown.aborted) return;
  await services.memory.ready();
  const conversation = services.store.conversations.byKey(conversationKey);
  // A spent daily budget refuses people's runs; it refuses the summaries they did not ask for too.
  if (!conversation || !services.limits.budgetLeft(conversation.guild_id)) return;
  const choice = placeChoice(services, conversation);
  await services.memory.summarise({
    conversationId: conversation.id,
    model: choice.model,
    modelName: choice.modelName,
    budget: choice.window.budget,
    shutdown: services.shutdown,
    newWork,
    instanceId: services.instanceId,
    logger: services.logger,
  });
}
