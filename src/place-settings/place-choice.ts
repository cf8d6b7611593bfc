/**
 * A run as its place's settings make it: the model chosen there, the persona its moderators wrote,
 * and the tools they left on (`/settings`, `/model`). Read at each run, so that a change applies to
 * the next run without a restart.
 */
import type { Store } from '../../db/store.ts';
import type { RuntimeTool, ToolServer } from '../agent/tool.ts';
import type { ConversationRow } from '../../db/conversations.ts';
import type { ImageTokenRule } from '../images/image-tokens.ts';
import type { ModelCatalog } from '../model-catalog/model-catalog.ts';
import { type EffectiveSettings, effectiveSettings, serverOfTool, toolEnabled } from './effective-settings.ts';

/** The settings in effect for a conversation; null outside a server. */
export function settingsOfConversation(
  store: Store,
  models: ModelCatalog,
  conversation: Pick<ConversationRow, 'guild_id' | 'channel_id' | 'thread_id'>,
): EffectiveSettings | null {
  if (!conversation.guild_id) return null;
  return effectiveSettings(
    store.placeSettings,
    { guildId: conversation.guild_id, channelId: conversation.channel_id, threadId: conversation.thread_id },
    { modelName: models.defaultName, modelNames: models.entries.map((entry) => entry.name) },
  );
}

/** Whether `tool` may be used here: offered to the model, and run with `/tool`. */
export function toolAllowedBy(
  settings: EffectiveSettings | null,
  toolServers: readonly ToolServer[],
): (tool: Pick<RuntimeTool, 'name'>) => boolean {
  if (!settings) return () => true;
  const serverNames = toolServers.map((server) => server.name);
  return (tool) => toolEnabled(settings, tool.name, serverOfTool(tool.name, serverNames));
}

/** What a model sees: whether images go to it, and how it counts their tokens (null: it sees none). */
export interface ModelVision {
  seesImages: boolean;
  imageTokens: ImageTokenRule | null;
}

/**
 * The memory window for the model chosen where the conversation takes place: MEMORY_TOKEN_BUDGET,
 * within half the model's context when the operator gave it (the other half is for the prompt, the
 * tools and the answer), and the images shown as that model counts them, or none if it cannot see.
 */
export function windowOptions(
  deps: { store: Store; models?: ModelCatalog; memoryBudget: number; visionOf?: (modelName: string) => ModelVision },
  conversation: Pick<ConversationRow, 'guild_id' | 'channel_id' | 'thread_id'>,
  /** The place's settings, when the caller has read them already. */
  read?: EffectiveSettings | null,
): { budget: number; imageTokens?: ImageTokenRule | null } {
  const settings =
    read !== undefined ? read : deps.models ? settingsOfConversation(deps.store, deps.models, conversation) : null;
  const modelName = settings?.model.value ?? deps.models?.defaultName;
  const context = modelName ? deps.models?.entry(modelName)?.contextTokens : null;
  const vision = modelName ? deps.visionOf?.(modelName) : undefined;
  return {
    budget: context ? Math.min(deps.memoryBudget, Math.floor(context / 2)) : deps.memoryBudget,
    ...(vision ? { imageTokens: vision.imageTokens } : {}),
  };
}
