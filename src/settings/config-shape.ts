/**
 * What the program gets from its settings, once read and checked (src/settings/config.ts reads them): the
 * shape every part is handed, apart from how it is read.
 */
import type { RetentionLimits } from '../../db/retention.ts';
import type { ContentCheckSettings } from '../content-check/content-check-settings.ts';
import type { AgentSettings } from '../agent/run-agent.ts';
import type { McpServerConfig } from '../mcp/mcp-config.ts';
import type { MemorySettings } from '../memory/conversation-memory.ts';
import type { ModelsConfig } from '../model-catalog/model-entry.ts';
import type { OpenAIModelClientOptions } from '../model-servers/openai-model-client.ts';
import type { VisionSetting } from '../model-servers/vision.ts';
import type { WebSearchConfig } from '../web/search/providers/index.ts';
import type { KnowledgeSettings } from './knowledge-settings.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  model: OpenAIModelClientOptions;
  agent: AgentSettings;
  databasePath: string;
  memory: MemorySettings;
  /** The operator's persona and rules, or null for none. */
  systemPrompt: string | null;
  logLevel: LogLevel;
  discord: DiscordSettings;
  /** The MCP servers of `MCP_CONFIG`; none when it is unset. */
  mcpServers: McpServerConfig[];
  /** The `web_search` tool's provider (WEB_SEARCH and its settings); null: the tool is not offered. */
  webSearch: WebSearchConfig | null;
  /** The server knowledge: EMBEDDING_* (null embeddings: BM25 alone) and KNOWLEDGE_MAX_* caps. */
  knowledge: KnowledgeSettings;
  shards: ShardSettings;
  /** Images: MODEL_VISION (resolved at start) and IMAGE_MAX_MB. */
  images: { vision: VisionSetting; maxBytes: number };
  /** MESSAGE_RETENTION_DAYS, STEP_LOG_RETENTION_DAYS, IMAGE_RETENTION_DAYS: null keeps for ever. */
  retention: RetentionLimits;
  /** CONTENT_CHECK and its settings: questions and answers checked before the model and people see them. */
  contentCheck: ContentCheckSettings;
  /** The models of `MODELS_FILE`; without it, the one of the OPENAI_* settings. `model` is the default's. */
  models: ModelsConfig;
  /**
   * The secret values the settings hold: the Discord token, OPENAI_API_KEY, BRAVE_API_KEY, TAVILY_API_KEY, EMBEDDING_API_KEY, and every variable read
   * by MODELS_FILE or MCP_CONFIG. The logger masks them wherever they turn up.
   */
  secrets: string[];
}

/** How the bot is split into shards (SHARD_COUNT, SHARD_IDS). */
export interface ShardSettings {
  /** Shards in all (`auto`: Discord's recommendation); 1: not sharded, one process. */
  count: number | 'auto';
  /** The shards this host runs; null: all of them. */
  ids: number[] | null;
}

export interface DiscordSettings {
  /** Null only for commands that do not connect to Discord (`npm run chat`). */
  token: string | null;
  apiUrl: string;
  /** Where attachments and linked images are fetched from (DISCORD_CDN_URL's origin); null: Discord's CDN. */
  cdnOrigin: string | null;
  allowedGuildIds: string[];
  allowedChannelIds: string[];
  toolPosts: 'all' | 'summary' | 'off';
  /** The answer shown in Discord as the model writes it (STREAM_ANSWERS). */
  streamAnswers: boolean;
  maxConcurrentRuns: number;
  attachmentMaxBytes: number;
  /** Commands are registered in this server only (instant updates while developing); null: everywhere. */
  commandGuildId: string | null;
  moderatorRoleIds: string[];
  /** Messages a person may send the agent per minute; 0: no limit. */
  userMessagesPerMinute: number;
  /** The most messages one `/summarize` reads (SUMMARIZE_MAX_MESSAGES); absent: 500. */
  summarizeMaxMessages?: number;
  /**
   * How long one `/summarize` may take (SUMMARIZE_TIMEOUT_SECONDS); absent: 10 minutes. Always
   * within the 15 minutes Discord serves the command's reply (src/discord/catch-up/summarize-here.ts).
   */
  summarizeTimeoutMs?: number;
  /** Tokens a server may use per day (UTC); 0: no limit. */
  dailyTokenBudget: number;
  /** Direct messages to the bot are conversations of their own (ALLOW_DMS); off: the DM intent is not asked for. */
  allowDms: boolean;
  /** Member memory (the `remember` tool, a member's facts in their runs) in direct messages (MEMBER_MEMORY_IN_DMS); servers switch it with `/settings member-memory`. */
  memberMemoryInDms?: boolean;
  /** Tokens all direct-message conversations together may use per day (UTC); 0: no limit. */
  dmDailyTokens: number;
  /** Tokens every server and direct message together may use per day (UTC): the ceiling over the others; 0: none. */
  totalDailyTokens: number;
  /**
   * People may install the app to their own account and use its personal commands anywhere, also
   * where no server added the bot (USER_INSTALL; docs/user-install.md).
   */
  userInstall?: boolean;
  /** Tokens all user-installed use together (where no server added the bot) may take per day (UTC); 0: no limit. */
  userInstallDailyTokens?: number;
  /**
   * How long a run answered through an interaction may take (13 minutes: Discord's token lasts 15,
   * the rest is for its notice and answer). Not a setting of the operator's: tests shorten it.
   */
  interactionRunMs?: number;
  /** How long a destructive tool call waits for its asker's Confirm before it is cancelled, and a tool's request for input for its answer (TOOL_CONFIRM_SECONDS). */
  toolConfirmMs?: number;
}
