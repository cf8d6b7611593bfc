/**
 * `npm run chat [-- --thread NAME]`: talk to the agent from a terminal, interactive or piped.
 * The composition root for the terminal: settings, database, model client, tools, then the session.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { builtInTools, databaseTools, webTools } from '../tools/index.ts';
import { createOpenAIModelClient } from './model-servers/openai-model-client.ts';
import { profileFor } from './model-servers/profiles/index.ts';
import { recordsInDatabase } from './model-servers/server-records.ts';
import { visionSetup } from './model-servers/vision.ts';
import { buildToolRegistry } from './agent/tool-registry.ts';
import { createLogger } from './app/logging.ts';
import { loadMcpServers, mcpScopeRoot } from './mcp/mcp-servers.ts';
import { conversationMemory } from './memory/conversation-memory.ts';
import { loadTokenCounter } from './memory/token-counter.ts';
import { startInstance } from './run-log/instance.ts';
import { loadConfigOrExit, openStoreOrExit } from './app/startup.ts';
import { runChatSession } from './terminal/chat-session.ts';
import { terminalConversationKey } from './conversation/conversation-keys.ts';
import { startTelemetry } from './telemetry/start-telemetry.ts';

const usage =
  'usage: npm run chat -- [--thread NAME]   (in the chat, /image PATH attaches an image to your next message)';
let thread: string;
try {
  const { values } = parseArgs({
    options: { thread: { type: 'string', default: 'console' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  thread = values.thread;
} catch (error) {
  console.error(`${(error as Error).message}\n${usage}`);
  process.exit(2);
}

const config = loadConfigOrExit('chat');
// Logs go to stderr, so that stdout holds the conversation alone.
const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2), config.secrets);

const store = openStoreOrExit(config.databasePath);
const instance = startInstance(store, 'chat', { logger });
const mcp = await loadMcpServers(config.mcpServers, logger, mcpScopeRoot(config.databasePath));
// Null (and nothing of OpenTelemetry loaded) with no OTLP endpoint set.
const telemetry = await startTelemetry({ instanceId: instance.id, models: [config.model] }, logger);
const shutDown = async () => {
  await Promise.all([mcp.close(), telemetry?.shutdown()]);
  instance.stop();
  store.close();
};
process.once('SIGTERM', () => {
  void shutDown().then(() => process.exit(0));
});
await mcp.start();

const name = process.env.USER || userInfo().username || 'you';
const user = { id: `terminal:${name}`, displayName: name, isModerator: true };
const counter = await loadTokenCounter(config.model.model);
const records = recordsInDatabase(store.modelServers);
const { vision, imageTokens } = visionSetup({
  setting: config.images.vision,
  profile: profileFor(config.model.provider ?? 'auto', config.model.baseURL),
  model: config.model.model,
  record: records.read(config.model.baseURL, config.model.model),
  stated: config.models.models.find((entry) => entry.name === config.models.defaultName)?.vision ?? null,
});
const memory = { ...config.memory, ...(imageTokens ? { imageTokens } : {}) };
const conversation = store.conversations.ensure({
  key: terminalConversationKey(thread),
  title: thread,
  guildId: null,
  channelId: null,
  startedById: user.id,
  startedByName: user.displayName,
});

try {
  await runChatSession({
    input: process.stdin,
    output: process.stdout,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
    conversation,
    memory: conversationMemory(store, counter, memory),
    instanceId: instance.id,
    user,
    model: createOpenAIModelClient(config.model, { records, logger }),
    tools: buildToolRegistry([...builtInTools, ...webTools(config), ...databaseTools(store)]),
    toolServers: mcp.connections,
    agent: { ...config.agent, seesImages: vision.enabled },
    operatorPrompt: config.systemPrompt,
    logger,
    images: { vision: vision.enabled, maxBytes: config.images.maxBytes },
    // Printed at the terminal is delivered: `npm run steps` must not call it owed.
    delivered: (runId) => store.runs.markDelivered(runId, 'posted'),
    signals: process,
    runSinks: telemetry ? [telemetry.sink] : [],
    streamAnswers: config.discord.streamAnswers,
  });
} finally {
  await shutDown();
}
