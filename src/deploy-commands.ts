/**
 * `npm run deploy-commands`: registers the slash commands by hand, in the server named by
 * DISCORD_GUILD_ID (instant, for development) or everywhere, and removes the bot's copies from the
 * other scope, where they would show twice. Only when they differ from what Discord has; `npm start`
 * does the same at every start. Needs the Discord settings, not the model's; writes no database.
 */
import { parseArgs } from 'node:util';
import { REST, Routes } from 'discord.js';
import { pino } from 'pino';
import { commands } from '../commands/index.ts';
import { builtInTools, databaseTools, knowledgeTools, webTools } from '../tools/index.ts';
import { KnowledgeBase } from './knowledge/knowledge-base.ts';
import { buildToolRegistry } from './agent/tool-registry.ts';
import { describeScope, registerCommands } from './discord/interactions/command-sync.ts';
import { toolSubcommands } from './discord/interactions/tool-options.ts';
import { createLogger } from './app/logging.ts';
import { McpConnection } from './mcp/mcp-connection.ts';
import { loadConfigOrExit, openStoreOrExit } from './app/startup.ts';

const usage = `usage: npm run deploy-commands
Registers the slash commands in the server DISCORD_GUILD_ID, or for every server when it is unset,
and removes the bot's commands from the other scope (where they would show twice).`;
try {
  const { values } = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
} catch (error) {
  console.error(`${(error as Error).message}\n${usage}`);
  process.exit(2);
}

const config = loadConfigOrExit('commands');
// Written at once, so that its lines come before the closing message (pino buffers by default).
const logger = createLogger(config.logLevel, pino.destination({ dest: 1, sync: true }), config.secrets);
const rest = new REST({ api: config.discord.apiUrl }).setToken(config.discord.token!);
const guildId = config.discord.commandGuildId;
try {
  const application = (await rest.get(Routes.currentApplication())) as { id: string };
  // The same tools as `npm start` offers, so that its start finds the commands unchanged. Only their
  // definitions are read: a database in memory stands in for the bot's, and no file is made.
  const store = openStoreOrExit(':memory:');
  const knowledge = new KnowledgeBase(store.db, { ...config.knowledge, embeddings: null });
  const tools = buildToolRegistry([
    ...builtInTools,
    ...webTools(config),
    ...databaseTools(store),
    ...knowledgeTools(knowledge, store),
  ]);
  store.close();
  // MCP servers' subcommands come from the configuration alone: nothing is started.
  const toolServers = config.mcpServers.map((server) => new McpConnection(server, logger));
  const setup = {
    tools,
    toolServers,
    toolSubcommands: toolSubcommands(tools, toolServers),
    moderatorRoleIds: config.discord.moderatorRoleIds,
    modelListings: config.models.models,
    allowDms: config.discord.allowDms,
    userInstall: config.discord.userInstall ?? false,
  };
  const { changed, removed } = await registerCommands({
    rest,
    applicationId: application.id,
    guildId,
    wanted: commands.map((command) => command.data(setup)),
    checkServersAlways: true,
    logger,
  });
  for (const scope of removed)
    console.log(
      `Removed ${scope.names.length} of its commands ${describeScope(scope.guildId)} (${scope.names.join(', ')}), where they showed twice.`,
    );
  const where = `${describeScope(guildId)}${guildId === null ? '' : ' (DISCORD_GUILD_ID)'}`;
  console.log(changed ? `Commands registered ${where}.` : `Commands already up to date ${where}: nothing to do.`);
  // Discord reads integration_types and contexts on global commands only (docs/user-install.md).
  if (setup.userInstall)
    console.log(
      guildId === null
        ? 'USER_INSTALL is on: /ask, "Ask about this message", /forget-me, /model and /usage may be installed to a person\'s account too (turn on User Install in the Developer Portal).'
        : 'USER_INSTALL is on, but DISCORD_GUILD_ID registers the commands in one server: people can install them to their account only once they are registered globally (leave DISCORD_GUILD_ID blank).',
    );
} catch (error) {
  const status = (error as { status?: number }).status;
  console.error(
    status === 401
      ? 'Discord rejected DISCORD_TOKEN: copy the bot token again from the Developer Portal.'
      : `Could not register the commands: ${(error as Error).message}`,
  );
  process.exit(1);
}
