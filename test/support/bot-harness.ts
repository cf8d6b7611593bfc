/**
 * The whole bot in-process, as `npm start` builds it: the real discord.js client against the fake
 * Discord, the real openai client against the scripted model, and a real SQLite file.
 */
import type { ContentCheckSettings } from '../../src/content-check/content-check-settings.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../db/store.ts';
import { recordsInDatabase } from '../../src/model-servers/server-records.ts';
import { limitModelCalls, modelCallLine } from '../../src/agent/limit-model-calls.ts';
import {
  type ModelCatalog,
  type ModelListing,
  modelCatalog,
  singleModelCatalog,
} from '../../src/model-catalog/model-catalog.ts';
import type { OpenAIModelClientOptions } from '../../src/model-servers/openai-model-client.ts';
import { type Logger, silentLogger } from '../../src/agent/logger.ts';
import { type AgentSettings, defaultAgentSettings } from '../../src/agent/run-agent.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import type { DiscordSettings } from '../../src/settings/config-shape.ts';
import { type Bot, type BotDependencies, type HandledEvent, startBot } from '../../src/discord/bot.ts';
import { buildBotServices, type ServiceSettings } from '../../src/app/bot-services.ts';
import type { MemorySettings } from '../../src/memory/conversation-memory.ts';
import { deferredTokenCounter } from '../../src/memory/token-counter.ts';
import { imageTokenRule } from '../../src/images/image-tokens.ts';
import { type Instance, startInstance } from '../../src/run-log/instance.ts';
import { builtInTools, databaseTools, knowledgeTools } from '../../tools/index.ts';
import { KnowledgeBase } from '../../src/knowledge/knowledge-base.ts';
import { createEmbeddingsClient } from '../../src/knowledge/embeddings-client.ts';
import { knowledgeFileBytes } from '../../src/discord/knowledge/knowledge-intake.ts';
import { commands } from '../../commands/index.ts';
import type { RuntimeTool, ToolServer } from '../../src/agent/tool.ts';
import type { CommandDefinition } from '../../src/discord/interactions/command-context.ts';
import { modelClientFor } from './agent-harness.ts';
import { type FakeDiscord, startFakeDiscord } from './fake-discord.ts';
import type { FakeAuthor } from './fake-discord/shared-types.ts';
import { type ScriptedModel, startScriptedModel } from './fake-model.ts';

export interface BotWorld {
  discord: FakeDiscord;
  model: ScriptedModel;
  /** With `extra.models`: each model's scripted server by its name (the first one's is `model`). */
  modelServers: ReadonlyMap<string, ScriptedModel>;
  bot: Bot;
  store: Store;
  /** The servers' knowledge, as the bot's commands and tools use it. */
  knowledge: KnowledgeBase;
  databasePath: string;
  /**
   * Resolves once the bot has handled each of these gateway events (its handler settled, whether
   * it succeeded or failed) and then every run they queued has ended: the moment a test may
   * assert that nothing more happened. Events are recorded from the bot's start, so one handled
   * before this is called is not missed. An id counts once per kind (a second edit of the same
   * message is not told apart from the first).
   */
  handled(kind: HandledEvent['kind'], ...ids: string[]): Promise<void>;
  /**
   * Stops the bot as SIGTERM does (runs in flight get `graceMs`, then are aborted) and closes the
   * database; `whileDown` runs before it comes back on the same database.
   */
  restart(options?: {
    graceMs?: number;
    whileDown?: () => Promise<void>;
    commands?: readonly CommandDefinition[];
  }): Promise<void>;
  /** Tears down in the right order: the client before the fake, then the fakes' own checks. */
  close(): Promise<void>;
}

export async function startBotWorld(
  settings: Partial<DiscordSettings> = {},
  agent: Partial<AgentSettings> = {},
  client: Partial<OpenAIModelClientOptions> = {},
  extra: {
    commands?: readonly CommandDefinition[];
    tools?: readonly RuntimeTool[];
    toolServers?: readonly ToolServer[];
    databaseTools?: boolean;
    schedulerIntervalMs?: number;
    /** The least time between two posts to a log channel (1 s unless given). */
    logPaceMs?: number;
    /** CONTENT_CHECK's settings (off unless given). */
    contentCheck?: ContentCheckSettings;
    /** The bot's logger (silent unless given: `recordingLogger()` keeps the lines to check). */
    logger?: Logger;
    /** The memory window's settings (8,000 tokens, 1,500 a message, unless given). */
    memory?: Partial<MemorySettings>;
    /** Whether the model sees images (off unless given; on counts them by OpenAI's rule) and the largest taken (5 MB). */
    images?: { vision: boolean; maxBytes?: number };
    /**
     * Several models, as MODELS_FILE gives them: the first is the default and talks to `model`,
     * each other one to a scripted server of its own (`modelServers`).
     */
    models?: readonly (Pick<ModelListing, 'name'> & Partial<ModelListing>)[];
    /** The operator's prompt (SYSTEM_PROMPT); none unless given. */
    operatorPrompt?: string;
    /** Hears what each call that needed confirmation came to. */
    onDestructiveTool?: ServiceSettings['onDestructiveTool'];
    /**
     * The servers' knowledge with `search_knowledge` among the tools (without it: a knowledge base
     * on the database, and no such tool): an embeddings server (none: BM25 alone), the caps, and the
     * addresses a URL added may reach although they are not public (a test's web server).
     */
    knowledge?: {
      embeddings?: { baseURL: string; model: string };
      maxDocumentCharacters?: number;
      maxServerCharacters?: number;
      testOnlyAllowAddresses?: readonly string[];
    };
  } = {},
): Promise<BotWorld> {
  const discord = await startFakeDiscord();
  const model = await startScriptedModel();
  const databasePath = join(mkdtempSync(join(tmpdir(), 'bot-')), 'bot.sqlite');
  const modelServers = new Map<string, ScriptedModel>();
  for (const [index, listed] of (extra.models ?? []).entries())
    modelServers.set(listed.name, index === 0 ? model : await startScriptedModel());
  // As the bot's: loaded by the first thing that needs it (no warm-up here), so that every test
  // through the bot would fail on a path that counts tokens without waiting for the encoding.
  const counter = deferredTokenCounter('gpt-4.1-mini');
  let store: Store;
  let instance: Instance;
  let currentCommands = extra.commands ?? commands;
  let bot: Bot;
  let knowledge: ReturnType<typeof knowledgeParts>;
  const handled = new Set<string>();
  const handledKey = (event: HandledEvent) => `${event.kind} ${event.id}`;

  const start = async () => {
    store = openStore(databasePath);
    instance = startInstance(store, 'bot', { exclusive: true });
    const records = recordsInDatabase(store.modelServers);
    const models: ModelCatalog | undefined = extra.models
      ? modelCatalog(
          {
            defaultName: extra.models[0]!.name,
            models: extra.models.map((listed) => ({
              description: '',
              vision: false,
              contextTokens: null,
              price: null,
              ...listed,
              // Each model's client options, as the file would give them: its own server.
              client: {
                apiKey: 'sk-test',
                temperature: 0,
                maxRetries: 2,
                timeoutSeconds: 10,
                maxRetryWaitSeconds: 30,
                provider: 'openai',
                ...client,
                baseURL: modelServers.get(listed.name)!.baseURL,
                model: `${listed.name}-model`,
              },
            })),
          },
          (entry) => modelClientFor({ baseURL: entry.client.baseURL }, entry.client, { records }),
          modelCallLine(settings.maxConcurrentRuns ?? 4),
        )
      : undefined;
    knowledge = knowledgeParts(store, discord.cdnUrl, extra.knowledge);
    const parts: BotDependencies['parts'] = {
      discord: {
        apiUrl: discord.apiUrl,
        // The fake serves attachments from its own origin; the bot fetches from Discord's CDN alone otherwise.
        cdnOrigin: discord.cdnUrl,
        allowedGuildIds: [],
        allowedChannelIds: [],
        toolPosts: 'all',
        // The scripted model answers whole; tests of streaming turn it on with a model that streams.
        streamAnswers: false,
        maxConcurrentRuns: 4,
        attachmentMaxBytes: 100 * 1024,
        commandGuildId: null,
        moderatorRoleIds: [],
        userMessagesPerMinute: 0,
        dailyTokenBudget: 0,
        allowDms: false,
        dmDailyTokens: 0,
        totalDailyTokens: 0,
        ...settings,
        token: discord.token,
      },
      agent: { ...defaultAgentSettings, seesImages: extra.images?.vision ?? false, ...agent },
      memorySettings: {
        tokenBudget: 8000,
        messageTokenCap: 1500,
        ...(extra.images?.vision ? { imageTokens: imageTokenRule('openai', 'gpt-4.1-mini') } : {}),
        ...extra.memory,
      },
      // With several models, each sees images as its listing says (MODELS_FILE's `vision:`); else the one
      // model sees them as the agent's settings say.
      vision: (name: string) => {
        const sees = extra.models
          ? extra.models.find((listed) => listed.name === name)?.vision === true
          : (agent.seesImages ?? extra.images?.vision ?? false);
        return { seesImages: sees, imageTokens: sees ? imageTokenRule('openai', 'gpt-4.1-mini') : null };
      },
      operatorPrompt: extra.operatorPrompt ?? null,
      store,
      counter,
      models:
        models ??
        singleModelCatalog(
          limitModelCalls(
            // What it learns of a server is remembered in the database, as the bot's is.
            modelClientFor(model, client, { records, logger: extra.logger }),
            settings.maxConcurrentRuns ?? 4,
          ),
        ),
      tools:
        extra.tools ??
        buildToolRegistry([
          ...builtInTools,
          ...(extra.databaseTools ? databaseTools(store) : []),
          ...(extra.knowledge ? knowledgeTools(knowledge.base, store) : []),
        ]),
      toolServers: extra.toolServers ?? [],
      instanceId: instance.id,
      logger: extra.logger ?? silentLogger,
      runSinks: [],
      knowledge,
    };
    // The services as the bot's own wiring builds them (src/app/bot-services.ts).
    const serviceSettings: ServiceSettings = {
      logPaceMs: extra.logPaceMs,
      contentCheck: extra.contentCheck,
      ...(extra.onDestructiveTool ? { onDestructiveTool: extra.onDestructiveTool } : {}),
    };
    bot = await startBot({
      parts,
      services: (client, shutdown) => buildBotServices(parts, serviceSettings, client, shutdown),
      commands: currentCommands,
      images: {
        vision: extra.images?.vision ?? extra.models?.some((listed) => listed.vision) ?? false,
        maxBytes: extra.images?.maxBytes ?? 5 * 1024 * 1024,
      },
      schedulerIntervalMs: extra.schedulerIntervalMs,
      onHandled: (event) => void handled.add(handledKey(event)),
    });
  };
  const stop = async (graceMs?: number) => {
    if (graceMs === undefined) await bot.queues.idle();
    await bot.stop({ graceMs });
    instance.stop();
    store.close();
  };
  await start();

  return {
    discord,
    model,
    modelServers,
    get bot() {
      return bot;
    },
    get store() {
      return store;
    },
    get knowledge() {
      return knowledge.base;
    },
    databasePath,
    async handled(kind, ...ids) {
      const waiting = () => ids.filter((id) => !handled.has(handledKey({ kind, id })));
      await discord.waitFor(() => waiting().length === 0, {
        what: `the bot to handle ${kind} ${waiting().join(', ')}`,
      });
      await bot.queues.idle();
    },
    async restart(options = {}) {
      await stop(options.graceMs);
      await options.whileDown?.();
      if (options.commands) currentCommands = options.commands;
      await start();
    },
    async close() {
      await stop();
      await discord.close();
      await model.close();
      for (const server of modelServers.values()) if (server !== model) await server.close();
    },
  };
}

/** The knowledge as the bot's wiring builds it (src/app/bot-dependencies.ts), on the test's database and fakes. */
function knowledgeParts(
  store: Store,
  cdnUrl: string,
  settings: NonNullable<Parameters<typeof startBotWorld>[3]>['knowledge'] = {},
) {
  const maxDocumentCharacters = settings.maxDocumentCharacters ?? 2_000_000;
  const allowed = new Set(settings.testOnlyAllowAddresses ?? []);
  return {
    base: new KnowledgeBase(store.db, {
      embeddings: createEmbeddingsClient(
        settings.embeddings ? { ...settings.embeddings, apiKey: null, timeoutSeconds: 10, maxRetries: 0 } : null,
      ),
      maxDocumentCharacters,
      maxServerCharacters: settings.maxServerCharacters ?? 20_000_000,
    }),
    intake: {
      maxBytes: knowledgeFileBytes(maxDocumentCharacters),
      origins: [cdnUrl],
      // No test touches DNS: a URL added names its address.
      resolve: async (hostname: string) => {
        throw new Error(`no DNS in tests (${hostname})`);
      },
      ...(allowed.size > 0 ? { testOnlyAllow: (address: string) => allowed.has(address) } : {}),
    },
  };
}

/** The bot's mention, as a person types it. */
export const mentionOf = (world: BotWorld) => `<@${world.discord.botUser.id}>`;

/** Ada mentions the bot in #general with `question`; resolves with her message and the thread the bot made from it. */
export async function askInGeneral(world: BotWorld, question: string, author: FakeAuthor = 'ada') {
  const { discord } = world;
  const asked = await discord.userSays({
    channelId: discord.channels.general,
    author,
    content: `${mentionOf(world)} ${question}`,
    mentions: [discord.botUser.id],
  });
  const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked.id), {
    what: 'the thread made from the question',
  });
  return { asked, thread };
}

/**
 * Waits for the bot's message with buttons in `channelId` (a question: Confirm / Cancel, a request
 * for input), other than `except`; returns it and its buttons' custom ids by their last part. The
 * ids are read at once: the message loses its buttons when the question closes.
 */
export async function waitForQuestion(world: BotWorld, channelId: string, except?: string) {
  const message = await world.discord.waitFor(() =>
    world.discord
      .botMessages(channelId)
      .find((candidate) => candidate.id !== except && (candidate.components ?? []).length > 0),
  );
  const ids = (message.components![0] as { components: { custom_id: string }[] }).components.map(
    (button) => button.custom_id,
  );
  return { message, buttonId: (name: string) => ids.find((id) => id.endsWith(`:${name}`))! };
}

/** Waits until the bot has posted at least `count` messages in `channelId`; returns them. */
export const waitForBotPosts = (world: BotWorld, channelId: string, count: number) =>
  world.discord.waitFor(
    () => {
      const posts = world.discord.botMessages(channelId);
      return posts.length >= count && posts;
    },
    { what: `${count} bot messages in ${channelId}` },
  );

export { type LogLine, recordingLogger } from './recording-logger.ts';
