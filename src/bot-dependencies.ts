/**
 * What `npm start` gives the bot, built from the settings in one place, so that a bench (bench:load)
 * builds the bot exactly as production does.
 */
import type { Store } from '../db/store.ts';
import { commands } from '../commands/index.ts';
import { builtInTools, databaseTools } from '../tools/index.ts';
import type { Logger } from './agent/logger.ts';
import { limitModelCalls } from './agent/limit-model-calls.ts';
import { createOpenAIModelClient } from './model-servers/openai-model-client.ts';
import { profileFor } from './model-servers/profiles/index.ts';
import { recordsInDatabase } from './model-servers/server-fixes.ts';
import { serverSummary } from './model-servers/server-summary.ts';
import { visionSetup } from './model-servers/vision.ts';
import type { ToolServer } from './agent/tool.ts';
import { buildToolRegistry } from './agent/tool-registry.ts';
import type { Config } from './config.ts';
import type { BotDependencies } from './discord/bot.ts';
import { loadTokenCounter } from './memory/token-counter.ts';

export async function botDependencies(
  config: Config,
  parts: {
    store: Store;
    instanceId: string;
    logger: Logger;
    toolServers?: readonly ToolServer[];
    /** The shards this process runs, when a shard manager started it. */
    shard?: { ids: number[]; count: number } | null;
  },
): Promise<BotDependencies> {
  const records = recordsInDatabase(parts.store.modelServers);
  const profile = profileFor(config.model.provider ?? 'auto', config.model.baseURL);
  const record = records.read(config.model.baseURL, config.model.model);
  // What is known of the model server, from memory: no request (a probe at each start would cost).
  const summary = serverSummary({
    profile,
    server: config.model.baseURL,
    model: config.model.model,
    apiKey: config.model.apiKey,
    toolProtocol: config.model.toolProtocol ?? 'auto',
    record,
  });
  parts.logger.info(summary.fields, summary.message);
  const { vision, memory } = visionSetup({
    setting: config.images.vision,
    profile,
    model: config.model.model,
    record,
    memory: config.memory,
  });
  parts.logger.info({ vision: vision.enabled, reason: vision.reason }, `images: ${vision.reason}`);
  return {
    discord: { ...config.discord, token: config.discord.token! },
    commands,
    agent: { ...config.agent, seesImages: vision.enabled },
    memory,
    images: { vision: vision.enabled, maxBytes: config.images.maxBytes },
    operatorPrompt: config.systemPrompt,
    store: parts.store,
    counter: await loadTokenCounter(config.model.model),
    model: limitModelCalls(
      createOpenAIModelClient(config.model, { records, logger: parts.logger }),
      config.discord.maxConcurrentRuns,
    ),
    tools: buildToolRegistry([...builtInTools, ...databaseTools(parts.store)]),
    toolServers: parts.toolServers ?? [],
    instanceId: parts.instanceId,
    logger: parts.logger,
    shard: parts.shard ?? null,
  };
}
