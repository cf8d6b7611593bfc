/**
 * What `npm start` gives the bot, built from the settings in one place, so that a bench (bench:load)
 * builds the bot exactly as production does: its parts, and how its services are built from them
 * once the client is ready (bot-services.ts).
 */
import type { Store } from '../../db/store.ts';
import { commands } from '../../commands/index.ts';
import { builtInTools, databaseTools, knowledgeTools, webTools } from '../../tools/index.ts';
import type { Logger } from '../agent/logger.ts';
import { modelCallLine } from '../agent/limit-model-calls.ts';
import { modelCatalog } from '../model-catalog/model-catalog.ts';
import { createOpenAIModelClient } from '../model-servers/openai-model-client.ts';
import { profileFor } from '../model-servers/profiles/index.ts';
import { recordsInDatabase } from '../model-servers/server-records.ts';
import { serverSummary } from '../model-servers/server-summary.ts';
import { visionSetup } from '../model-servers/vision.ts';
import type { ToolServer } from '../agent/tool.ts';
import { buildToolRegistry } from '../agent/tool-registry.ts';
import type { Config } from '../settings/config-shape.ts';
import type { BotDependencies } from '../discord/bot.ts';
import type { BotParts } from '../discord/bot-services.ts';
import { buildBotServices } from './bot-services.ts';
import { deferredTokenCounter } from '../memory/token-counter.ts';
import { discordCdnOrigins } from '../discord/inbound/incoming-images.ts';
import { createEmbeddingsClient } from '../knowledge/embeddings-client.ts';
import { KnowledgeBase } from '../knowledge/knowledge-base.ts';
import { knowledgeFileBytes } from '../discord/knowledge/knowledge-intake.ts';
import type { KnowledgeParts } from '../discord/knowledge/knowledge-additions.ts';
import { systemResolver } from '../web/safe-fetch.ts';

export async function botDependencies(
  config: Config,
  parts: {
    store: Store;
    instanceId: string;
    logger: Logger;
    toolServers?: readonly ToolServer[];
    /** The shards this process runs, when a shard manager started it. */
    shard?: { ids: number[]; count: number } | null;
    /** Sinks that hear every run's events besides the bot's own (the OpenTelemetry export). */
    runSinks?: BotParts['runSinks'];
  },
): Promise<BotDependencies> {
  const records = recordsInDatabase(parts.store.modelServers);
  // One line of calls for every model: MAX_CONCURRENT_RUNS holds however many there are.
  const models = modelCatalog(
    config.models,
    (entry) => createOpenAIModelClient(entry.client, { records, logger: parts.logger }),
    modelCallLine(config.discord.maxConcurrentRuns),
  );
  for (const { client: model } of config.models.models) {
    // What is known of each model server, from memory: no request (a probe at each start would cost).
    const summary = serverSummary({
      profile: profileFor(model.provider ?? 'auto', model.baseURL),
      server: model.baseURL,
      model: model.model,
      apiKey: model.apiKey,
      toolProtocol: model.toolProtocol ?? 'auto',
      record: records.read(model.baseURL, model.model),
    });
    parts.logger.info(summary.fields, summary.message);
  }
  // Images: what each model sees (MODEL_VISION, MODELS_FILE's `vision:`, or what is known of it).
  const visions = new Map(
    config.models.models.map(({ name, client, vision: stated }) => {
      const seen = visionSetup({
        setting: config.images.vision,
        profile: profileFor(client.provider ?? 'auto', client.baseURL),
        model: client.model,
        record: records.read(client.baseURL, client.model),
        stated,
      });
      parts.logger.info(
        { model: name, vision: seen.vision.enabled, reason: seen.vision.reason },
        `images: ${seen.vision.reason}`,
      );
      return [name, { seesImages: seen.vision.enabled, imageTokens: seen.imageTokens ?? null }];
    }),
  );
  const vision = (name: string) => visions.get(name) ?? visions.get(models.defaultName)!;
  parts.logger.info(
    { webSearch: config.webSearch?.provider ?? null },
    config.webSearch
      ? `web search: ${config.webSearch.provider} at ${config.webSearch.endpoint}`
      : 'web search: off (set SEARXNG_URL, BRAVE_API_KEY or TAVILY_API_KEY to offer web_search)',
  );
  const byDefault = vision(models.defaultName);
  const knowledge = knowledgeParts(config, parts);
  const botParts = {
    discord: { ...config.discord, token: config.discord.token! },
    agent: { ...config.agent, seesImages: byDefault.seesImages },
    memorySettings: { ...config.memory, ...(byDefault.imageTokens ? { imageTokens: byDefault.imageTokens } : {}) },
    vision,
    operatorPrompt: config.systemPrompt,
    store: parts.store,
    // Loaded once the bot is ready (main.ts), or by the first message that needs it if one comes first.
    counter: deferredTokenCounter(config.model.model),
    models,
    tools: builtTools(config, parts.store, knowledge),
    toolServers: parts.toolServers ?? [],
    instanceId: parts.instanceId,
    logger: parts.logger,
    runSinks: parts.runSinks ?? [],
    knowledge,
  };
  return {
    parts: botParts,
    services: (client, shutdown) => buildBotServices(botParts, { contentCheck: config.contentCheck }, client, shutdown),
    commands,
    // Taken in and kept when any model sees images: a place may switch to one that does.
    images: { vision: [...visions.values()].some((vision) => vision.seesImages), maxBytes: config.images.maxBytes },
    shard: parts.shard ?? null,
  };
}

/**
 * The servers' knowledge on the bot's database (EMBEDDING_*: by meaning too; KNOWLEDGE_MAX_*: its
 * caps), and how documents are taken in: from Discord's CDN (or DISCORD_CDN_URL), and the web by
 * the system's resolver under fetch_url's rules.
 */
function knowledgeParts(config: Config, parts: { store: Store; logger: Logger }): KnowledgeParts {
  return {
    base: new KnowledgeBase(parts.store.db, {
      embeddings: createEmbeddingsClient(config.knowledge.embeddings),
      maxDocumentCharacters: config.knowledge.maxDocumentCharacters,
      maxServerCharacters: config.knowledge.maxServerCharacters,
      logger: parts.logger,
    }),
    intake: {
      maxBytes: knowledgeFileBytes(config.knowledge.maxDocumentCharacters),
      origins: config.discord.cdnOrigin ? [config.discord.cdnOrigin] : discordCdnOrigins,
      resolve: systemResolver,
    },
  };
}

/** The built-in tools: those that need their arguments alone, the web's, the database's, and the knowledge's. */
function builtTools(config: Config, store: Store, knowledge: KnowledgeParts) {
  return buildToolRegistry([
    ...builtInTools,
    ...webTools(config),
    ...databaseTools(store),
    ...knowledgeTools(knowledge.base, store),
  ]);
}
