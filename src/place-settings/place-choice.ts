/**
 * A run as its place's settings make it: the model chosen there, the persona its moderators wrote,
 * and the tools they left on (`/settings`, `/model`), as one small value (PlaceChoice). Read when
 * each run is planned (src/discord/runs/answer-new-messages.ts, resume-run.ts), so that a change applies to the next run
 * without a restart.
 */
import type { ContentChecks } from '../content-check/content-checks.ts';
import type { Store } from '../../db/store.ts';
import type { KnowledgeBase } from '../knowledge/knowledge-base.ts';
import type { RuntimeTool, ToolServer } from '../agent/tool.ts';
import {
  type ConversationRow,
  directMessagesServerId,
  isDirectMessageConversation,
  userInstallServerId,
} from '../../db/conversations.ts';
import type { ImageTokenRule } from '../images/image-tokens.ts';
import type { MemorySettings } from '../memory/conversation-memory.ts';
import type { ModelCatalog, RunModelClient } from '../model-catalog/model-catalog.ts';
import type { DiscordSettings } from '../settings/config-shape.ts';
import { type EffectiveSettings, effectiveSettings, serverOfTool, toolEnabled } from './effective-settings.ts';

/**
 * The settings in effect for a conversation; null outside Discord. A DM has no server or channel to
 * inherit from: only its own (`/model` there), over the operator's defaults.
 */
export function settingsOfConversation(
  store: Store,
  models: ModelCatalog,
  conversation: Pick<ConversationRow, 'guild_id' | 'channel_id' | 'thread_id'> & Partial<Pick<ConversationRow, 'key'>>,
): EffectiveSettings | null {
  const direct =
    conversation.key !== undefined &&
    isDirectMessageConversation({ guild_id: conversation.guild_id, key: conversation.key });
  if (!conversation.guild_id && !direct) return null;
  // Where no server added the bot (a user install), the person's own choice of the place (`/model`
  // there, keyed by the conversation's key) over the operator's defaults: no server's or channel's.
  const userInstalled = conversation.guild_id === userInstallServerId;
  const place = direct
    ? { guildId: directMessagesServerId, channelId: null, threadId: conversation.thread_id }
    : userInstalled
      ? { guildId: userInstallServerId, channelId: null, threadId: conversation.key ?? null }
      : { guildId: conversation.guild_id!, channelId: conversation.channel_id, threadId: conversation.thread_id };
  return effectiveSettings(store.placeSettings, place, {
    modelName: models.defaultName,
    modelNames: models.entries.map((entry) => entry.name),
  });
}

/** The tool that searches a server's knowledge (tools/search-knowledge.ts): offered only where the place has some. */
export const knowledgeToolName = 'search_knowledge';

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

/** What applies to a run where its conversation takes place: read once, when the run is planned. */
export interface PlaceChoice {
  /** The model chosen there (a MODELS_FILE name, else the default), and its client. */
  modelName: string;
  model: RunModelClient;
  /**
   * The memory window: MEMORY_TOKEN_BUDGET, within half the model's context when the operator gave
   * it (the other half is for the prompt, the tools and the answer), and the images shown as that
   * model counts them (null: it sees none).
   */
  window: { budget: number; imageTokens: ImageTokenRule | null };
  seesImages: boolean;
  /** The persona its moderators wrote, and its version (recorded with the run); null: none. */
  persona: string | null;
  personaVersion: number | null;
  /** Whether a tool is on there (moderators may switch tools off). */
  toolAllowed: (tool: Pick<RuntimeTool, 'name'>) => boolean;
  /**
   * The content checks of its questions and answers (CONTENT_CHECK), decided here once for every
   * stage of the run; null when none apply: CONTENT_CHECK is off, or its moderators switched checks
   * off there (`/settings content-check`).
   */
  checks: ContentChecks | null;
  /**
   * Whether members' facts are remembered there: the `remember` tool offered, and the requester's
   * facts shown to the model (src/conversation/member-facts.ts). In a server, its moderators'
   * `/settings member-memory` (off unless switched on); in direct messages, MEMBER_MEMORY_IN_DMS.
   */
  memberMemory: boolean;
}

/** What the choice is made from: the settings in the database, the models on offer and what each sees. */
export interface PlaceChoiceSources {
  store: Store;
  models: ModelCatalog;
  vision: (modelName: string) => ModelVision;
  memorySettings: Pick<MemorySettings, 'tokenBudget'>;
  toolServers: readonly ToolServer[];
  /** CONTENT_CHECK's checks; null when it is off. */
  contentChecks: ContentChecks | null;
  /** MEMBER_MEMORY_IN_DMS (off when not given). */
  discord?: Pick<DiscordSettings, 'memberMemoryInDms'>;
  /** The servers' knowledge: `search_knowledge` is offered where the place has some (none given: nowhere). */
  knowledge?: { base: Pick<KnowledgeBase, 'has'> };
}

/** What applies where `conversation` takes place, as its settings say now (`/settings`, `/model`). */
export function placeChoice(
  sources: PlaceChoiceSources,
  conversation: Pick<ConversationRow, 'guild_id' | 'channel_id' | 'thread_id'> & Partial<Pick<ConversationRow, 'key'>>,
): PlaceChoice {
  const settings = settingsOfConversation(sources.store, sources.models, conversation);
  const modelName = settings?.model.value ?? sources.models.defaultName;
  const context = sources.models.entry(modelName)?.contextTokens;
  const budget = sources.memorySettings.tokenBudget;
  const vision = sources.vision(modelName);
  return {
    modelName,
    model: sources.models.clientFor(modelName),
    window: { budget: context ? Math.min(budget, Math.floor(context / 2)) : budget, imageTokens: vision.imageTokens },
    seesImages: vision.seesImages,
    persona: settings?.persona?.value ?? null,
    personaVersion: settings?.persona?.change?.id ?? null,
    toolAllowed: withKnowledge(toolAllowedBy(settings, sources.toolServers), sources, conversation),
    checks: (settings?.contentCheck.value ?? true) ? sources.contentChecks : null,
    memberMemory: memberMemoryIn(sources, conversation, settings),
  };
}

/**
 * `allowed`, and `search_knowledge` only where the place has knowledge: the server's, or its
 * channel's (a thread's: its channel's). Asked when the run is planned, so a document added applies
 * to the next run.
 */
function withKnowledge(
  allowed: (tool: Pick<RuntimeTool, 'name'>) => boolean,
  sources: Pick<PlaceChoiceSources, 'knowledge'>,
  conversation: Pick<ConversationRow, 'guild_id' | 'channel_id' | 'thread_id'>,
): (tool: Pick<RuntimeTool, 'name'>) => boolean {
  const { guild_id: guildId } = conversation;
  const channelIds = [conversation.channel_id, conversation.thread_id].filter((id): id is string => id !== null);
  const hasKnowledge = guildId !== null && sources.knowledge?.base.has({ guildId, channelIds }) === true;
  return (tool) => (tool.name === knowledgeToolName ? hasKnowledge && allowed(tool) : allowed(tool));
}

/** Member memory where the conversation is: a server's switch, or the operator's for direct messages; never at the terminal. */
function memberMemoryIn(
  sources: Pick<PlaceChoiceSources, 'discord'>,
  conversation: Pick<ConversationRow, 'guild_id'> & Partial<Pick<ConversationRow, 'key'>>,
  settings: EffectiveSettings | null,
): boolean {
  if (!settings) return false;
  if (conversation.guild_id === null) return sources.discord?.memberMemoryInDms === true;
  return settings.memberMemory.value;
}
